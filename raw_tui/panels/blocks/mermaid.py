"""`mermaid`: a diagram source; where it cannot be drawn the source is shown as text."""

from __future__ import annotations

from ..fields import At, text
from ..limits import MAX_MERMAID_BYTES
from ..textfmt import Style
from .base import BlockKind


def validate(block: dict, at: At) -> None:
    text(block["source"], at + ("source",), min_chars=1, max_bytes=MAX_MERMAID_BYTES)


def render(block: dict, style: Style) -> list[str]:
    """The tool's `fallback` (what the diagram says, in words) when it gave one, then the
    source."""
    head = block["fallback"].split("\n") if block.get("fallback") else []
    return head + ["(mermaid diagram, source shown)"] + [
        "    " + line for line in block["source"].split("\n")]


KIND = BlockKind(name="mermaid", fields=frozenset({"source"}), required=("source",),
                 validate=validate, render=render)

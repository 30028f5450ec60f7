"""`markdown`: text (at most 16 KiB). The plain render shows it as written."""

from __future__ import annotations

from ..fields import At, text
from ..limits import MAX_MARKDOWN_BYTES
from ..textfmt import Style
from .base import BlockKind


def validate(block: dict, at: At) -> None:
    text(block["text"], at + ("text",), max_bytes=MAX_MARKDOWN_BYTES)


def render(block: dict, style: Style) -> list[str]:
    return block["text"].split("\n") if block["text"] else []


KIND = BlockKind(name="markdown", fields=frozenset({"text"}), required=("text",),
                 validate=validate, render=render)

"""`key_value`: keys in bold, aligned, named by their key (Raw's `entries` or raw-tui's
`items`); where a pair points (`ref`) after its value."""

from __future__ import annotations

from rich.text import Text

from .base import Row, entries, ref_text, scalar


def rows(block: dict) -> list[Row]:
    items = entries(block)
    room = min(max((len(str(i.get("key", ""))) for i in items), default=0), 24)
    out: list[Row] = []
    for item in items:
        key = str(item.get("key", ""))
        line = Text(key[:room].ljust(room), style="bold")
        line.append("  " + scalar(item.get("value")).replace("\n", " "))
        if ref_text(item.get("ref")):
            line.append(ref_text(item.get("ref")), style="cyan")
        out.append((key, line))
    return out

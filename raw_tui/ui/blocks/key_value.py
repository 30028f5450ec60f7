"""`key_value`: keys in bold, aligned, named by their key."""

from __future__ import annotations

from rich.text import Text

from .base import Row, scalar


def rows(block: dict) -> list[Row]:
    items = block.get("items") or []
    room = min(max((len(str(i.get("key", ""))) for i in items), default=0), 24)
    out: list[Row] = []
    for item in items:
        key = str(item.get("key", ""))
        line = Text(key[:room].ljust(room), style="bold")
        line.append("  " + scalar(item.get("value")).replace("\n", " "))
        out.append((key, line))
    return out

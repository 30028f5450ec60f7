"""`steps`: numbered items, each with a status glyph."""

from __future__ import annotations

from rich.text import Text

from .base import Row, status_glyph


def rows(block: dict) -> list[Row]:
    items = block.get("items") or []
    digits = len(str(len(items)))
    out: list[Row] = []
    for n, item in enumerate(items, 1):
        line = Text(f"{n:>{digits}}. ")
        line.append_text(status_glyph(item.get("status", "pending")))
        line.append(" " + str(item.get("label", "")))
        if item.get("note"):
            line.append(f" ({item['note']})", style="dim")
        out.append((item.get("id"), line))
    return out

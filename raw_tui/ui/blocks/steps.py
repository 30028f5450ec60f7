"""`steps`: numbered items, each with a status glyph, its detail or note, and how long a
finished step took."""

from __future__ import annotations

from rich.text import Text

from .base import Row, status_glyph


def duration(item: dict) -> str:
    start, end = item.get("started_at"), item.get("ended_at")
    if not isinstance(start, int) or not isinstance(end, int) or end < start:
        return ""
    seconds = round((end - start) / 1000)
    if seconds < 60:
        return f"{seconds}s"
    minutes = round(seconds / 60)
    return f"{minutes}m" if minutes < 60 else f"{round(minutes / 60)}h"


def rows(block: dict) -> list[Row]:
    items = block.get("items") or []
    digits = len(str(len(items)))
    out: list[Row] = []
    for n, item in enumerate(items, 1):
        line = Text(f"{n:>{digits}}. ")
        line.append_text(status_glyph(item.get("status", "pending")))
        line.append(" " + str(item.get("label", "")))
        if item.get("detail"):
            line.append(f" — {item['detail']}", style="dim")
        if item.get("note"):
            line.append(f" ({item['note']})", style="dim")
        if duration(item):
            line.append(f" ({duration(item)})", style="dim")
        out.append((item.get("id"), line))
    return out

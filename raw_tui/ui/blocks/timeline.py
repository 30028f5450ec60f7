"""`timeline`: events newest first, each with its time and a level glyph."""

from __future__ import annotations

from rich.text import Text

from .base import Row, level_glyph


def rows(block: dict) -> list[Row]:
    events = list(block.get("events") or [])
    room = max((len(e.get("time", "")) for e in events), default=0)
    out: list[Row] = []
    for event in reversed(events):
        line = Text(f"{event.get('time', ''):<{room}}  " if room else "", style="dim")
        line.append_text(level_glyph(event.get("level", "info")))
        line.append(" " + str(event.get("text", "")).replace("\n", " "))
        out.append((event.get("id"), line))
    return out

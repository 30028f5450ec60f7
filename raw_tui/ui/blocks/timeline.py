"""`timeline`: events newest first, each with its time (raw-tui's `time`, or Raw's `at` as
UTC HH:MM:SS), a level glyph, what happened (`text` or `label`) and its `detail`."""

from __future__ import annotations

import time

from rich.text import Text

from .base import Row, level_glyph


def stamp(event: dict) -> str:
    if "time" in event:
        return str(event["time"])
    if isinstance(event.get("at"), int):
        return time.strftime("%H:%M:%S", time.gmtime(event["at"] / 1000))
    return ""


def rows(block: dict) -> list[Row]:
    events = list(block.get("events") or [])
    room = max((len(stamp(e)) for e in events), default=0)
    out: list[Row] = []
    for event in reversed(events):
        line = Text(f"{stamp(event):<{room}}  " if room else "", style="dim")
        line.append_text(level_glyph(event.get("level", "info")))
        said = event.get("label", event.get("text", ""))
        line.append(" " + str(said).replace("\n", " "))
        if event.get("detail"):
            line.append(" — " + str(event["detail"]).replace("\n", " "), style="dim")
        out.append((event.get("id"), line))
    return out

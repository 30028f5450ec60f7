"""`timeline`: events in order; `append_events` adds and keeps the last `max` (the block's
`max`, 1–200, else the patch's, else 200).

An event: Raw's `{id, at (ms), level, label, detail?}` or raw-tui's `{id?, time?, text,
level?}` — one of `label` and `text` names what happened."""

from __future__ import annotations

import time as _time

from ..errors import Invalid
from ..fields import At, choice, integer, item_ident, obj, text
from ..limits import MAX_EVENT_DETAIL, MAX_LABEL, MAX_TIMELINE_EVENTS, MAX_TIMELINE_KEEP
from ..textfmt import Style, pad, width
from .base import BlockKind, ItemSpec, validate_items

LEVELS = ("info", "success", "warning", "error")
_EVENT = frozenset({"id", "time", "text", "level", "label", "at", "detail"})


def validate_event(event: object, at: At, depth: int, block: dict) -> None:
    obj(event, at, _EVENT)
    if "text" not in event and "label" not in event:
        raise Invalid(at + ("text",), "required (or label)")
    if "text" in event and "label" in event:
        raise Invalid(at + ("label",), "an event has one of label and text")
    if "id" in event:
        item_ident(event["id"], at + ("id",))
    if "time" in event:
        text(event["time"], at + ("time",), max_chars=40)
    if "at" in event:
        integer(event["at"], at + ("at",), minimum=0)
    name = "label" if "label" in event else "text"
    text(event[name], at + (name,), min_chars=1, max_chars=MAX_LABEL)
    if "detail" in event:
        text(event["detail"], at + ("detail",), max_chars=MAX_EVENT_DETAIL)
    if "level" in event:
        choice(event["level"], at + ("level",), LEVELS)


EVENTS = ItemSpec(fields=("events",), key="id", remove_by="ids", limit=MAX_TIMELINE_EVENTS,
                  what="events", validate_item=validate_event, key_optional=True,
                  appendable=True)


def validate(block: dict, at: At) -> None:
    if "max" in block:
        keep = integer(block["max"], at + ("max",), minimum=1, maximum=MAX_TIMELINE_KEEP)
        if len(block.get("events") or []) > keep:
            raise Invalid(at + ("events",), f"at most {keep} events (the block's max)")
    validate_items(block, EVENTS, at)


def stamp(event: dict) -> str:
    """When: raw-tui's `time` as written, or Raw's `at` (ms since the epoch) as UTC HH:MM:SS."""
    if "time" in event:
        return event["time"]
    if isinstance(event.get("at"), int):
        return _time.strftime("%H:%M:%S", _time.gmtime(event["at"] / 1000))
    return ""


def words(event: dict) -> str:
    said = event.get("label", event.get("text", ""))
    return f"{said} — {event['detail']}" if event.get("detail") else said


def render(block: dict, style: Style) -> list[str]:
    events = block.get("events") or []
    room = max((width(stamp(e)) for e in events), default=0)
    lines = []
    for event in events:
        glyph = style.level[event.get("level", "info")]
        when = f"{pad(stamp(event), room)}  " if room else ""
        said = words(event) if style.unicode else words(event).replace(" — ", " - ")
        first, *rest = said.split("\n")
        lines.append(f"{when}{glyph} {first}")
        lines.extend(" " * (len(when) + width(glyph) + 1) + more for more in rest)
    return lines


KIND = BlockKind(name="timeline", fields=frozenset({"events", "max"}), required=(),
                 validate=validate, render=render, items=EVENTS)

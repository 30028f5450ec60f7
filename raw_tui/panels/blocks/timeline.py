"""`timeline`: events in order (`append_events` adds and keeps the last `max`)."""

from __future__ import annotations

from ..fields import At, choice, ident, obj, text
from ..limits import MAX_LABEL, MAX_TIMELINE_EVENTS
from ..textfmt import Style, pad, width
from .base import BlockKind, ItemSpec, validate_items

LEVELS = ("info", "success", "warning", "error")
_EVENT = frozenset({"id", "time", "text", "level"})


def validate_event(event: object, at: At, depth: int, block: dict) -> None:
    obj(event, at, _EVENT, ("text",))
    if "id" in event:
        ident(event["id"], at + ("id",))
    if "time" in event:
        text(event["time"], at + ("time",), max_chars=40)
    text(event["text"], at + ("text",), min_chars=1, max_chars=MAX_LABEL)
    if "level" in event:
        choice(event["level"], at + ("level",), LEVELS)


EVENTS = ItemSpec(field="events", key="id", remove_by="ids", limit=MAX_TIMELINE_EVENTS,
                  what="events", validate_item=validate_event, key_optional=True,
                  appendable=True)


def validate(block: dict, at: At) -> None:
    validate_items(block, EVENTS, at)


def render(block: dict, style: Style) -> list[str]:
    events = block.get("events") or []
    room = max((width(e.get("time", "")) for e in events), default=0)
    lines = []
    for event in events:
        glyph = style.level[event.get("level", "info")]
        stamp = f"{pad(event.get('time', ''), room)}  " if room else ""
        first, *rest = event["text"].split("\n")
        lines.append(f"{stamp}{glyph} {first}")
        lines.extend(" " * (len(stamp) + width(glyph) + 1) + more for more in rest)
    return lines


KIND = BlockKind(name="timeline", fields=frozenset({"events"}), required=(),
                 validate=validate, render=render, items=EVENTS)

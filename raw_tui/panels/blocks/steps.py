"""`steps`: an ordered list of at most 30 steps, each with a status.

A step: `{id, label, status?, detail?, note?, started_at?, ended_at?}` (`detail` is Raw's,
`note` raw-tui's; the times are milliseconds, a finished step shows how long it took)."""

from __future__ import annotations

from ..fields import At, choice, integer, item_ident, obj, text
from ..limits import MAX_DETAIL, MAX_FIELD_LABEL, MAX_LABEL, MAX_STEPS
from ..textfmt import Style
from .base import BlockKind, ItemSpec, validate_items
from .checklist import STATUSES

_ITEM = frozenset({"id", "label", "status", "note", "detail", "started_at", "ended_at"})


def validate_item(item: object, at: At, depth: int, block: dict) -> None:
    obj(item, at, _ITEM, ("id", "label"))
    item_ident(item["id"], at + ("id",))
    text(item["label"], at + ("label",), min_chars=1, max_chars=MAX_FIELD_LABEL)
    if "status" in item:
        choice(item["status"], at + ("status",), STATUSES)
    if "note" in item:
        text(item["note"], at + ("note",), max_chars=MAX_LABEL)
    if "detail" in item:
        text(item["detail"], at + ("detail",), max_chars=MAX_DETAIL)
    for name in ("started_at", "ended_at"):
        if name in item:
            integer(item[name], at + (name,), minimum=0)


ITEMS = ItemSpec(fields=("items",), key="id", remove_by="ids", limit=MAX_STEPS, what="steps",
                 validate_item=validate_item)


def validate(block: dict, at: At) -> None:
    validate_items(block, ITEMS, at)


def duration(item: dict) -> str:
    """How long a finished step took (`12s`, `3m`, `2h`), or nothing."""
    start, end = item.get("started_at"), item.get("ended_at")
    if not isinstance(start, int) or not isinstance(end, int) or end < start:
        return ""
    seconds = round((end - start) / 1000)
    if seconds < 60:
        return f"{seconds}s"
    minutes = round(seconds / 60)
    return f"{minutes}m" if minutes < 60 else f"{round(minutes / 60)}h"


def render(block: dict, style: Style) -> list[str]:
    items = block.get("items") or []
    digits = len(str(len(items)))
    dash = " — " if style.unicode else " - "
    lines = []
    for n, item in enumerate(items, 1):
        glyph = style.status[item.get("status", "pending")]
        line = f"{n:>{digits}}. {glyph} {item['label']}"
        if item.get("detail"):
            line += f"{dash}{item['detail']}"
        if item.get("note"):
            line += f" ({item['note']})"
        if duration(item):
            line += f" ({duration(item)})"
        lines.append(line)
    return lines


KIND = BlockKind(name="steps", fields=frozenset({"items"}), required=(), validate=validate,
                 render=render, items=ITEMS)

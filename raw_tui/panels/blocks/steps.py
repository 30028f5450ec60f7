"""`steps`: an ordered list of at most 30 steps, each with a status."""

from __future__ import annotations

from ..fields import At, choice, ident, obj, text
from ..limits import MAX_FIELD_LABEL, MAX_LABEL, MAX_STEPS
from ..textfmt import Style
from .base import BlockKind, ItemSpec, validate_items
from .checklist import STATUSES

_ITEM = frozenset({"id", "label", "status", "note"})


def validate_item(item: object, at: At, depth: int, block: dict) -> None:
    obj(item, at, _ITEM, ("id", "label"))
    ident(item["id"], at + ("id",))
    text(item["label"], at + ("label",), min_chars=1, max_chars=MAX_FIELD_LABEL)
    if "status" in item:
        choice(item["status"], at + ("status",), STATUSES)
    if "note" in item:
        text(item["note"], at + ("note",), max_chars=MAX_LABEL)


ITEMS = ItemSpec(field="items", key="id", remove_by="ids", limit=MAX_STEPS, what="steps",
                 validate_item=validate_item)


def validate(block: dict, at: At) -> None:
    validate_items(block, ITEMS, at)


def render(block: dict, style: Style) -> list[str]:
    items = block.get("items") or []
    digits = len(str(len(items)))
    lines = []
    for n, item in enumerate(items, 1):
        glyph = style.status[item.get("status", "pending")]
        line = f"{n:>{digits}}. {glyph} {item['label']}"
        if item.get("note"):
            line += f" ({item['note']})"
        lines.append(line)
    return lines


KIND = BlockKind(name="steps", fields=frozenset({"items"}), required=(), validate=validate,
                 render=render, items=ITEMS)

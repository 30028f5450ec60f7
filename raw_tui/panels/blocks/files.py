"""`files`: paths with a status and a note, named by their path."""

from __future__ import annotations

from ..fields import At, choice, obj, text
from ..limits import MAX_FILES, MAX_LABEL, MAX_PATH
from ..textfmt import Style, pad, width
from .base import BlockKind, ItemSpec, validate_items

STATUSES = ("added", "modified", "deleted", "renamed", "read", "unchanged")
LETTERS = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R", "read": "r",
           "unchanged": " "}
_ITEM = frozenset({"path", "status", "note"})


def validate_item(item: object, at: At, depth: int, block: dict) -> None:
    obj(item, at, _ITEM, ("path",))
    text(item["path"], at + ("path",), min_chars=1, max_chars=MAX_PATH)
    if "status" in item:
        choice(item["status"], at + ("status",), STATUSES)
    if "note" in item:
        text(item["note"], at + ("note",), max_chars=MAX_LABEL)


ITEMS = ItemSpec(field="items", key="path", remove_by="paths", limit=MAX_FILES, what="files",
                 validate_item=validate_item)


def validate(block: dict, at: At) -> None:
    validate_items(block, ITEMS, at)


def render(block: dict, style: Style) -> list[str]:
    items = block.get("items") or []
    room = min(max((width(i["path"]) for i in items if i.get("note")), default=0), 60)
    lines = []
    for item in items:
        letter = LETTERS[item.get("status", "unchanged")]
        if item.get("note"):
            lines.append(f"{letter} {pad(item['path'], room)}  {item['note']}")
        else:
            lines.append(f"{letter} {item['path']}")
    return lines


KIND = BlockKind(name="files", fields=frozenset({"items"}), required=(), validate=validate,
                 render=render, items=ITEMS)

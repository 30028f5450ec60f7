"""`files`: paths with a status, named by their path: `entries` (Raw's spelling) or `items`
(raw-tui's), each `{path, status?, line?, label?, note?}`."""

from __future__ import annotations

from ..fields import At, choice, integer, obj, text
from ..limits import MAX_FIELD_LABEL, MAX_FILES, MAX_LABEL, MAX_PATH
from ..textfmt import Style, pad, width
from .base import BlockKind, ItemSpec, item_list, validate_items

# Raw's four and raw-tui's own
STATUSES = ("added", "modified", "deleted", "referenced", "renamed", "read", "unchanged")
LETTERS = {"added": "A", "modified": "M", "deleted": "D", "referenced": "R", "renamed": "R",
           "read": "r", "unchanged": " "}
_ITEM = frozenset({"path", "status", "note", "line", "label"})


def validate_item(item: object, at: At, depth: int, block: dict) -> None:
    obj(item, at, _ITEM, ("path",))
    text(item["path"], at + ("path",), min_chars=1, max_chars=MAX_PATH)
    if "status" in item:
        choice(item["status"], at + ("status",), STATUSES)
    if "note" in item:
        text(item["note"], at + ("note",), max_chars=MAX_LABEL)
    if "label" in item:
        text(item["label"], at + ("label",), max_chars=MAX_FIELD_LABEL)
    if "line" in item:
        integer(item["line"], at + ("line",), minimum=1)


ITEMS = ItemSpec(fields=("items", "entries"), key="path", remove_by="paths", limit=MAX_FILES,
                 what="files", validate_item=validate_item)


def validate(block: dict, at: At) -> None:
    validate_items(block, ITEMS, at)


def where(item: dict) -> str:
    """The path, with `:line` when it has one."""
    return f"{item['path']}:{item['line']}" if item.get("line") else item["path"]


def describe(item: dict) -> str:
    """The label and the note, in that order."""
    return "  ".join(str(item[k]) for k in ("label", "note") if item.get(k))


def render(block: dict, style: Style) -> list[str]:
    items = item_list(block, ITEMS)
    room = min(max((width(where(i)) for i in items if describe(i)), default=0), 60)
    lines = []
    for item in items:
        default = "referenced" if "entries" in block else "unchanged"
        letter = LETTERS[item.get("status", default)]
        if describe(item):
            lines.append(f"{letter} {pad(where(item), room)}  {describe(item)}")
        else:
            lines.append(f"{letter} {where(item)}")
    return lines


KIND = BlockKind(name="files", fields=frozenset({"items", "entries"}), required=(),
                 validate=validate, render=render, items=ITEMS)

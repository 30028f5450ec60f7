"""`checklist`: items with a status, nested at most 3 levels, at most 200 items in all."""

from __future__ import annotations

from ..errors import Invalid
from ..fields import At, array, choice, ident, obj, text
from ..limits import MAX_CHECKLIST_DEPTH, MAX_CHECKLIST_ITEMS, MAX_LABEL
from ..textfmt import Style
from .base import BlockKind, ItemSpec, validate_items

STATUSES = ("pending", "in_progress", "done", "skipped", "blocked", "failed")
_ITEM = frozenset({"id", "label", "status", "note", "items"})


def validate_item(item: object, at: At, depth: int, block: dict) -> None:
    obj(item, at, _ITEM, ("id", "label"))
    ident(item["id"], at + ("id",))
    text(item["label"], at + ("label",), min_chars=1, max_chars=MAX_LABEL)
    if "status" in item:
        choice(item["status"], at + ("status",), STATUSES)
    if "note" in item:
        text(item["note"], at + ("note",), max_chars=MAX_LABEL)
    if "items" in item:
        children = array(item["items"], at + ("items",))
        if children and depth >= MAX_CHECKLIST_DEPTH:
            raise Invalid(at + ("items",),
                          f"checklists nest at most {MAX_CHECKLIST_DEPTH} levels")
        for i, child in enumerate(children):
            validate_item(child, at + ("items", i), depth + 1, block)


ITEMS = ItemSpec(field="items", key="id", remove_by="ids", limit=MAX_CHECKLIST_ITEMS,
                 what="items", validate_item=validate_item, nested=True,
                 max_depth=MAX_CHECKLIST_DEPTH)


def validate(block: dict, at: At) -> None:
    validate_items(block, ITEMS, at)


def counts(items: list) -> tuple[int, int]:
    """(done, total) over every item of a checklist, nested ones included."""
    done = total = 0
    stack = list(items)
    while stack:
        item = stack.pop()
        total += 1
        done += item.get("status") == "done"
        stack.extend(item.get("items") or ())
    return done, total


def render(block: dict, style: Style) -> list[str]:
    lines: list[str] = []
    _render_items(block.get("items") or [], style, "", lines)
    return lines


def _render_items(items: list, style: Style, prefix: str, lines: list[str]) -> None:
    for item in items:
        glyph = style.status[item.get("status", "pending")]
        line = f"{prefix}{glyph} {item['label']}"
        if item.get("note"):
            line += f" — {item['note']}" if style.unicode else f" - {item['note']}"
        lines.append(line)
        _render_items(item.get("items") or [], style, prefix + "  ", lines)


KIND = BlockKind(name="checklist", fields=frozenset({"items"}), required=(),
                 validate=validate, render=render, items=ITEMS)

"""`checklist`: items with a status, nested at most 3 levels, at most 200 items in all.

An item: `{id, label, status?, priority?: high|medium|low, note?, ref?: {path, line?},
children?}`; raw-tui's own spelling of the children, `items`, is read too (one or the other
on an item)."""

from __future__ import annotations

from ..errors import Invalid
from ..fields import At, array, choice, item_ident, obj, ref, ref_text, text
from ..limits import MAX_CHECKLIST_DEPTH, MAX_CHECKLIST_ITEMS, MAX_LABEL
from ..textfmt import Style
from .base import BlockKind, ItemSpec, children_of, validate_items

STATUSES = ("pending", "in_progress", "done", "skipped", "blocked", "failed")
FINISHED = ("done", "skipped")  # what derived progress counts as done (as Raw does)
PRIORITIES = ("high", "medium", "low")
_ITEM = frozenset({"id", "label", "status", "priority", "note", "ref", "items", "children"})


def validate_item(item: object, at: At, depth: int, block: dict) -> None:
    obj(item, at, _ITEM, ("id", "label"))
    item_ident(item["id"], at + ("id",))
    text(item["label"], at + ("label",), min_chars=1, max_chars=MAX_LABEL)
    if "status" in item:
        choice(item["status"], at + ("status",), STATUSES)
    if "priority" in item:
        choice(item["priority"], at + ("priority",), PRIORITIES)
    if "note" in item:
        text(item["note"], at + ("note",), max_chars=MAX_LABEL)
    if "ref" in item:
        ref(item["ref"], at + ("ref",))
    if "items" in item and "children" in item:
        raise Invalid(at + ("children",), "an item has one of items or children")
    for name in ("items", "children"):
        if name not in item:
            continue
        children = array(item[name], at + (name,))
        if children and depth >= MAX_CHECKLIST_DEPTH:
            raise Invalid(at + (name,), f"checklists nest at most {MAX_CHECKLIST_DEPTH} levels")
        for i, child in enumerate(children):
            validate_item(child, at + (name, i), depth + 1, block)


ITEMS = ItemSpec(fields=("items",), key="id", remove_by="ids", limit=MAX_CHECKLIST_ITEMS,
                 what="items", validate_item=validate_item, nested=True,
                 max_depth=MAX_CHECKLIST_DEPTH)


def validate(block: dict, at: At) -> None:
    validate_items(block, ITEMS, at)


def leaves(items: list) -> list:
    """The items without children, in order (what derived progress counts)."""
    out: list = []
    for item in items:
        children = children_of(item, ITEMS)
        if children:
            out.extend(leaves(children))
        else:
            out.append(item)
    return out


def counts(items: list) -> tuple[int, int]:
    """(finished, total) over the leaf items of a checklist: `done` and `skipped` count as
    finished, a parent counts through its children (as Raw's derived progress)."""
    shown = leaves(items)
    return sum(item.get("status") in FINISHED for item in shown), len(shown)


def render(block: dict, style: Style) -> list[str]:
    lines: list[str] = []
    _render_items(block.get("items") or [], style, "", lines)
    return lines


def _render_items(items: list, style: Style, prefix: str, lines: list[str]) -> None:
    dash = " — " if style.unicode else " - "
    for item in items:
        glyph = style.status[item.get("status", "pending")]
        line = f"{prefix}{glyph} {item['label']}"
        if item.get("priority"):
            line += f" [{item['priority']}]"
        if item.get("note"):
            line += f"{dash}{item['note']}"
        line += ref_text(item.get("ref"))
        lines.append(line)
        _render_items(children_of(item, ITEMS), style, prefix + "  ", lines)


KIND = BlockKind(name="checklist", fields=frozenset({"items"}), required=(),
                 validate=validate, render=render, items=ITEMS)

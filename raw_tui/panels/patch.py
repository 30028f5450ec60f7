"""The patch vocabulary of docs/panels.md (not JSON Patch), applied all or nothing.

    set {field, value}                 a top-level field; null deletes it
    set_block {block, before?}         add or replace a whole block (by id); `before` moves it
    remove_block {id}
    upsert_items {block, items, parent?}   add items, or assign the given fields of
                                           existing ones (matched by name)
    remove_items {block, ids|keys|paths}   (and their children, in a checklist)
    append_events {block, events, max?}    a timeline: append, then keep the last `max`

`apply_patches` never changes the stored document: it copies what it touches (copy on write)
and validates exactly what changed, so the result is a valid document when it returns.
Errors point into the update: `/patches/2/items/0/status: must be one of ...`.
"""

from __future__ import annotations

from typing import Any, Callable

from .blocks import KINDS, ItemSpec, check_structure, validate_block
from .blocks.base import block_child_field, child_field, children_of, list_field
from .errors import Invalid
from .fields import At, array, ident, integer, item_ident, obj
from .document import FIELDS
from .limits import MAX_BLOCKS, MAX_PATCHES_PER_UPDATE

OPS = ("set", "set_block", "remove_block", "upsert_items", "remove_items", "append_events")


class _Work:
    """The document being patched: copies of the parts already changed."""

    def __init__(self, document: dict) -> None:
        self.doc = dict(document)
        self.blocks: list[dict] = list(document.get("blocks") or [])
        self._copied_blocks: set[int] = set()  # id() of blocks already copied

    def index(self, block_id: str) -> int | None:
        for i, block in enumerate(self.blocks):
            if block["id"] == block_id:
                return i
        return None

    def own_block(self, i: int) -> dict:
        """A private copy of block i (copied once per update)."""
        block = self.blocks[i]
        if id(block) not in self._copied_blocks:
            block = dict(block)
            self.blocks[i] = block
            self._copied_blocks.add(id(block))
        return block

    def result(self) -> dict:
        if self.blocks or "blocks" in self.doc:
            self.doc["blocks"] = self.blocks
        return self.doc


def apply_patches(document: dict, patches: Any, at: At = ("patches",)) -> dict:
    """The document after `patches`, validated. Raises `Invalid` (nothing is changed)."""
    patches = array(patches, at, min_items=1, max_items=MAX_PATCHES_PER_UPDATE, what="patches")
    work = _Work(document)
    for i, patch in enumerate(patches):
        here = at + (i,)
        if not isinstance(patch, dict):
            raise Invalid(here, "must be an object")
        op = patch.get("op")
        if not isinstance(op, str) or op not in _APPLY:
            raise Invalid(here + ("op",), "must be one of " + ", ".join(OPS))
        _APPLY[op](work, patch, here)
    return work.result()


# set -----------------------------------------------------------------------------------

def _set(work: _Work, patch: dict, at: At) -> None:
    obj(patch, at, frozenset({"op", "field", "value"}), ("field", "value"))
    field = patch["field"]
    if field == "blocks":
        raise Invalid(at + ("field",), "blocks change with set_block and remove_block")
    if not isinstance(field, str) or field not in FIELDS:
        raise Invalid(at + ("field",), "must be one of " +
                      ", ".join(f for f in FIELDS if f != "blocks"))
    value = patch["value"]
    if value is None:
        work.doc.pop(field, None)
        return
    FIELDS[field](value, at + ("value",))
    work.doc[field] = value


# blocks --------------------------------------------------------------------------------

def _set_block(work: _Work, patch: dict, at: At) -> None:
    obj(patch, at, frozenset({"op", "block", "before"}), ("block",))
    block = validate_block(patch["block"], at + ("block",))
    current = work.index(block["id"])
    before = patch.get("before")
    if before is not None:
        ident(before, at + ("before",))
        if before == block["id"]:
            raise Invalid(at + ("before",), "a block cannot go before itself")
        if work.index(before) is None:
            raise Invalid(at + ("before",), f"no block {before!r}")
    if current is not None and before is None:
        work.blocks[current] = block
        return
    if current is not None:
        del work.blocks[current]
    elif len(work.blocks) >= MAX_BLOCKS:
        raise Invalid(at + ("block",), f"a document holds at most {MAX_BLOCKS} blocks")
    target = work.index(before) if before is not None else len(work.blocks)
    work.blocks.insert(target, block)


def _remove_block(work: _Work, patch: dict, at: At) -> None:
    obj(patch, at, frozenset({"op", "id"}), ("id",))
    index = work.index(ident(patch["id"], at + ("id",)))
    if index is None:
        raise Invalid(at + ("id",), f"no block {patch['id']!r}")
    del work.blocks[index]


def _item_block(work: _Work, patch: dict, at: At) -> tuple[dict, ItemSpec]:
    """The block a patch edits items of, copied, with its item list copied too."""
    index = work.index(ident(patch["block"], at + ("block",)))
    if index is None:
        raise Invalid(at + ("block",), f"no block {patch['block']!r}")
    kind = KINDS.get(work.blocks[index]["kind"])
    if kind is None or kind.items is None:
        raise Invalid(at + ("block",),
                      f"a {work.blocks[index]['kind']} block has no items to patch")
    block = work.own_block(index)
    spec = kind.items
    field = list_field(block, spec)
    block[field] = list(block.get(field) or [])
    return block, spec


# items ---------------------------------------------------------------------------------

def _upsert_items(work: _Work, patch: dict, at: At) -> None:
    obj(patch, at, frozenset({"op", "block", "items", "parent"}), ("block", "items"))
    block, spec = _item_block(work, patch, at)
    items = array(patch["items"], at + ("items",), min_items=1, max_items=spec.limit,
                  what=spec.what)
    parent = patch.get("parent")
    if parent is not None and not spec.nested:
        raise Invalid(at + ("parent",), f"a {block['kind']} block is not nested")
    grew = False
    for j, item in enumerate(items):
        here = at + ("items", j)
        if isinstance(item, dict) and spec.key not in item:
            raise Invalid(here + (spec.key,), "required")
        if parent is None:
            grew |= _upsert_one(block, spec, item, here, None)
        else:
            grew |= _upsert_one(block, spec, item, here,
                                item_ident(parent, at + ("parent",)))
    if grew:
        check_structure(block, spec, (), blame=at + ("items",))


def _upsert_one(block: dict, spec: ItemSpec, item: Any, at: At, parent: str | None) -> bool:
    """Add one item, or assign its fields to the item of the same name (the merged item is
    validated; a new one must be complete); True when names may have been added (new items or a new
    subtree), so the block's count and unique names need checking again."""
    top: list = block[list_field(block, spec)]
    found = _find(top, spec, item[spec.key] if isinstance(item, dict) else None)
    if found is not None:  # shallow field assignment: given fields replace, others stay
        path, depth = found
        container = _own_path(block, spec, path[:-1])
        merged = {**container[path[-1]], **item}
        spec.validate_item(merged, at, depth, block)
        container[path[-1]] = merged
        return spec.nested and any(name in item for name in spec.child_fields)
    if parent is None:
        spec.validate_item(item, at, 1, block)
        top.append(item)
        return True
    where = _find(top, spec, parent)
    if where is None:
        raise Invalid(at[:-2] + ("parent",), f"no item {parent!r}")
    path, depth = where
    if depth >= spec.max_depth:
        raise Invalid(at[:-2] + ("parent",),
                      f"checklists nest at most {spec.max_depth} levels")
    spec.validate_item(item, at, depth + 1, block)
    container = _own_path(block, spec, path[:-1])
    owner = dict(container[path[-1]])
    children = child_field(owner, spec, block_child_field(block, spec))
    owner[children] = list(owner.get(children) or []) + [item]
    container[path[-1]] = owner
    return True


def _find(items: list, spec: ItemSpec, name: Any) -> tuple[list[int], int] | None:
    """The index path and depth of the item named `name`."""
    if name is None:
        return None
    if not spec.nested:
        for i, item in enumerate(items):
            if item.get(spec.key) == name:
                return [i], 1
        return None
    stack: list[tuple[list, list[int]]] = [(items, [])]
    while stack:
        level, prefix = stack.pop()
        for i, item in enumerate(level):
            if item.get(spec.key) == name:
                return prefix + [i], len(prefix) + 1
            children = children_of(item, spec)
            if children:
                stack.append((children, prefix + [i]))
    return None


def _own_path(block: dict, spec: ItemSpec, path: list[int]) -> list:
    """The list holding the item at `path + [k]`, with every list and item on the way copied
    (the block's own top list is already a copy)."""
    container: list = block[list_field(block, spec)]
    for index in path:
        item = dict(container[index])
        children = child_field(item, spec)
        item[children] = list(item.get(children) or [])
        container[index] = item
        container = item[children]
    return container


def _remove_items(work: _Work, patch: dict, at: At) -> None:
    obj(patch, at, frozenset({"op", "block", "ids", "keys", "paths"}), ("block",))
    block, spec = _item_block(work, patch, at)
    for other in ("ids", "keys", "paths"):
        if other in patch and other != spec.remove_by:
            raise Invalid(at + (other,), f"items of a {block['kind']} block are removed "
                                         f"by {spec.remove_by}")
    if spec.remove_by not in patch:
        raise Invalid(at + (spec.remove_by,), "required")
    names = array(patch[spec.remove_by], at + (spec.remove_by,), min_items=1, what="names")
    for j, name in enumerate(names):
        here = at + (spec.remove_by, j)
        if not isinstance(name, str):
            raise Invalid(here, "must be a string")
        found = _find(block[list_field(block, spec)], spec, name)
        if found is None:
            raise Invalid(here, f"no {spec.key} {name!r} in block {block['id']!r}")
        path, _depth = found
        container = _own_path(block, spec, path[:-1])
        del container[path[-1]]


def _append_events(work: _Work, patch: dict, at: At) -> None:
    obj(patch, at, frozenset({"op", "block", "events", "max"}), ("block", "events"))
    block, spec = _item_block(work, patch, at)
    if not spec.appendable:
        raise Invalid(at + ("block",), f"append_events needs a timeline block, not "
                                       f"{block['kind']}")
    keep = block.get("max", spec.limit)  # the block's own max (Raw's), else the limit
    if "max" in patch:
        keep = integer(patch["max"], at + ("max",), minimum=1, maximum=spec.limit)
    events = array(patch["events"], at + ("events",), min_items=1, max_items=spec.limit,
                   what=spec.what)
    for j, event in enumerate(events):
        spec.validate_item(event, at + ("events", j), 1, block)
    field = list_field(block, spec)
    merged = block[field] + events
    block[field] = merged[-keep:]
    check_structure(block, spec, (), blame=at + ("events",))


_APPLY: dict[str, Callable[[_Work, dict, At], None]] = {
    "set": _set,
    "set_block": _set_block,
    "remove_block": _remove_block,
    "upsert_items": _upsert_items,
    "remove_items": _remove_items,
    "append_events": _append_events,
}

__all__ = ["OPS", "apply_patches"]

"""What a block kind is: its fields, its validation, its text render and (for kinds that hold
items) how patches find, add and remove its items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..errors import Invalid
from ..fields import At
from ..textfmt import Style

# Every block may carry `fallback`: text shown where the block cannot be drawn (Raw's
# BlockBase; docs/decisions.md).
COMMON_FIELDS = frozenset({"id", "kind", "title", "fallback"})


@dataclass(frozen=True)
class ItemSpec:
    """The items of a block that patches edit: `upsert_items`, `remove_items`,
    `append_events`."""

    fields: tuple[str, ...]  # the list in the block, by its possible names (the first is
    # the default): ("items", "entries") for key_value and files, ("rows",) for tables...
    key: str  # what names an item: "id", "key" or "path"
    remove_by: str  # the list of names in remove_items: "ids", "keys" or "paths"
    limit: int
    what: str  # "items", "rows", "events" (in messages)
    validate_item: Callable[[Any, At, int, dict], None]  # (item, at, depth, block)
    nested: bool = False  # checklist items hold children
    # the names an item's children may have: raw-tui's `items`, Raw's `children`
    child_fields: tuple[str, ...] = ("items", "children")
    max_depth: int = 1
    key_optional: bool = False  # timeline events may have no id
    appendable: bool = False  # append_events applies


@dataclass(frozen=True)
class BlockKind:
    name: str
    fields: frozenset[str]  # kind-specific fields
    required: tuple[str, ...]
    validate: Callable[[dict, At], None]  # kind-specific checks (fields already known)
    render: Callable[[dict, Style], list[str]]
    items: ItemSpec | None = None


# Item trees ---------------------------------------------------------------------------

def list_field(block: dict, spec: ItemSpec) -> str:
    """The name of the block's item list: the one it has, else the kind's default."""
    for name in spec.fields:
        if name in block:
            return name
    return spec.fields[0]


def item_list(block: dict, spec: ItemSpec) -> list:
    return block.get(list_field(block, spec)) or []


def child_field(item: dict, spec: ItemSpec, default: str | None = None) -> str:
    """The name of an item's children list: the one it has, else `default` (the block's
    own spelling), else the first."""
    for name in spec.child_fields:
        if name in item:
            return name
    return default or spec.child_fields[0]


def children_of(item: dict, spec: ItemSpec) -> list:
    if not spec.nested:
        return []
    for name in spec.child_fields:
        children = item.get(name)
        if children:
            return children
    return []


def block_child_field(block: dict, spec: ItemSpec) -> str:
    """How a nested block spells children: Raw's `children` once any item uses it."""
    for item, _at, _depth in walk(item_list(block, spec), spec, ()):
        for name in spec.child_fields:
            if name in item:
                return name
    return spec.child_fields[0]

def walk(items: list, spec: ItemSpec, at: At, depth: int = 1) -> Iterator[tuple[dict, At, int]]:
    """Every item of a block (depth first, in order) with its path and depth."""
    for i, item in enumerate(items):
        here = at + (i,)
        yield item, here, depth
        if spec.nested:
            children = children_of(item, spec)
            if children:
                yield from walk(children, spec, here + (child_field(item, spec),), depth + 1)


def _names(items: list, spec: ItemSpec) -> list:
    """The name of every item (nested ones too), None for unnamed timeline events."""
    names: list = []
    key = spec.key
    stack = [items]
    while stack:
        for item in stack.pop():
            names.append(item.get(key))
            if spec.nested:
                children = children_of(item, spec)
                if children:
                    stack.append(children)
    return names


def check_structure(block: dict, spec: ItemSpec, at: At, *, blame: At | None = None) -> None:
    """Count and unique names over all items of a block (items themselves already valid).
    `blame` is where an error points (the patch that added the items)."""
    field = list_field(block, spec)
    items = block.get(field) or []
    names = _names(items, spec)
    named = [n for n in names if n is not None] if spec.key_optional else names
    if len(set(named)) != len(named):
        _blame_duplicate(items, spec, at + (field,), blame)
    if len(names) > spec.limit:
        where = blame if blame is not None else at + (field,)
        raise Invalid(where, f"a {block.get('kind')} block holds at most {spec.limit} "
                             f"{spec.what} (this would make {len(names)})")


def _blame_duplicate(items: list, spec: ItemSpec, at: At, blame: At | None) -> None:
    seen: set[str] = set()
    for item, here, _depth in walk(items, spec, at):
        name = item.get(spec.key)
        if name is None:
            continue
        if name in seen:
            where = blame if blame is not None else here + (spec.key,)
            raise Invalid(where, f"duplicate {spec.key} {name!r}")
        seen.add(name)


def validate_items(block: dict, spec: ItemSpec, at: At) -> None:
    from ..fields import array

    present = [name for name in spec.fields if name in block]
    if len(present) > 1:
        raise Invalid(at + (present[1],), f"a block has one of {' or '.join(spec.fields)}")
    field = list_field(block, spec)
    items = array(block.get(field, []), at + (field,))
    for i, item in enumerate(items):
        spec.validate_item(item, at + (field, i), 1, block)
    check_structure(block, spec, at)

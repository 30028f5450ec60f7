"""What a block kind is: its fields, its validation, its text render and (for kinds that hold
items) how patches find, add and remove its items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..errors import Invalid
from ..fields import At
from ..textfmt import Style

COMMON_FIELDS = frozenset({"id", "kind", "title"})


@dataclass(frozen=True)
class ItemSpec:
    """The items of a block that patches edit: `upsert_items`, `remove_items`,
    `append_events`."""

    field: str  # the list in the block: "items", "rows" or "events"
    key: str  # what names an item: "id", "key" or "path"
    remove_by: str  # the list of names in remove_items: "ids", "keys" or "paths"
    limit: int
    what: str  # "items", "rows", "events" (in messages)
    validate_item: Callable[[Any, At, int, dict], None]  # (item, at, depth, block)
    nested: bool = False  # checklist items hold `items`
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

def walk(items: list, spec: ItemSpec, at: At, depth: int = 1) -> Iterator[tuple[dict, At, int]]:
    """Every item of a block (depth first, in order) with its path and depth."""
    for i, item in enumerate(items):
        here = at + (i,)
        yield item, here, depth
        if spec.nested:
            children = item.get(spec.field)
            if children:
                yield from walk(children, spec, here + (spec.field,), depth + 1)


def _names(items: list, spec: ItemSpec) -> list:
    """The name of every item (nested ones too), None for unnamed timeline events."""
    names: list = []
    key, field = spec.key, spec.field
    stack = [items]
    while stack:
        for item in stack.pop():
            names.append(item.get(key))
            if spec.nested:
                children = item.get(field)
                if children:
                    stack.append(children)
    return names


def check_structure(block: dict, spec: ItemSpec, at: At, *, blame: At | None = None) -> None:
    """Count and unique names over all items of a block (items themselves already valid).
    `blame` is where an error points (the patch that added the items)."""
    items = block.get(spec.field) or []
    names = _names(items, spec)
    named = [n for n in names if n is not None] if spec.key_optional else names
    if len(set(named)) != len(named):
        _blame_duplicate(items, spec, at, blame)
    if len(names) > spec.limit:
        where = blame if blame is not None else at + (spec.field,)
        raise Invalid(where, f"a {block.get('kind')} block holds at most {spec.limit} "
                             f"{spec.what} (this would make {len(names)})")


def _blame_duplicate(items: list, spec: ItemSpec, at: At, blame: At | None) -> None:
    seen: set[str] = set()
    for item, here, _depth in walk(items, spec, at + (spec.field,)):
        name = item.get(spec.key)
        if name is None:
            continue
        if name in seen:
            where = blame if blame is not None else here + (spec.key,)
            raise Invalid(where, f"duplicate {spec.key} {name!r}")
        seen.add(name)


def validate_items(block: dict, spec: ItemSpec, at: At) -> None:
    from ..fields import array

    items = array(block.get(spec.field, []), at + (spec.field,))
    for i, item in enumerate(items):
        spec.validate_item(item, at + (spec.field, i), 1, block)
    check_structure(block, spec, at)

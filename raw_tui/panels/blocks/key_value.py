"""`key_value`: at most 50 pairs, named by their key: `entries` (Raw's spelling) or `items`
(raw-tui's), each `{key, value, ref?}`."""

from __future__ import annotations

from ..fields import At, obj, ref, ref_text, scalar, text
from ..limits import MAX_KEY, MAX_KEY_VALUE, MAX_LABEL
from ..textfmt import Style, clip, pad, width
from .base import BlockKind, ItemSpec, item_list, validate_items

_ITEM = frozenset({"key", "value", "ref"})


def validate_item(item: object, at: At, depth: int, block: dict) -> None:
    obj(item, at, _ITEM, ("key", "value"))
    text(item["key"], at + ("key",), min_chars=1, max_chars=MAX_KEY)
    scalar(item["value"], at + ("value",), max_chars=MAX_LABEL)
    if "ref" in item:
        ref(item["ref"], at + ("ref",))


ITEMS = ItemSpec(fields=("items", "entries"), key="key", remove_by="keys", limit=MAX_KEY_VALUE,
                 what="pairs", validate_item=validate_item)


def validate(block: dict, at: At) -> None:
    validate_items(block, ITEMS, at)


def show(value: object) -> str:
    if value is None:
        return "—"
    if value is True or value is False:
        return "yes" if value else "no"
    return str(value)


def render(block: dict, style: Style) -> list[str]:
    items = item_list(block, ITEMS)
    keys = [clip(item["key"], 32, style.ellipsis) for item in items]
    room = max((width(k) for k in keys), default=0)
    lines = []
    for key, item in zip(keys, items):
        value = show(item["value"]) if style.unicode or item["value"] is not None else "-"
        first, *rest = (value + ref_text(item.get("ref"))).split("\n")
        lines.append(f"{pad(key, room)}  {first}")
        lines.extend(" " * (room + 2) + more for more in rest)
    return lines


KIND = BlockKind(name="key_value", fields=frozenset({"items", "entries"}), required=(),
                 validate=validate, render=render, items=ITEMS)

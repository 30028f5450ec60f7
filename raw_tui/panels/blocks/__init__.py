"""The block catalog. A kind is a module here that defines `KIND`; adding one is adding a
module to `_MODULES`, nothing else changes."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..errors import Invalid
from ..fields import At, any_json, ident, obj, text
from ..limits import MAX_FALLBACK_BYTES, MAX_TITLE
from ..textfmt import Style
from .base import COMMON_FIELDS, BlockKind, ItemSpec, check_structure, walk

_MODULES = ("form", "mermaid", "markdown", "checklist", "steps", "progress", "key_value",
            "table", "timeline", "files")

KINDS: dict[str, BlockKind] = {}
for _name in _MODULES:
    _kind: BlockKind = import_module(f"{__name__}.{_name}").KIND
    KINDS[_kind.name] = _kind

__all__ = ["KINDS", "BlockKind", "ItemSpec", "validate_block", "render_block", "item_spec",
           "check_structure", "walk"]


def validate_block(block: Any, at: At) -> dict:
    """A whole block: the common fields (`id`, `kind`, `title?`, `fallback?`), then the
    kind's own. A kind
    this build does not know is kept when its common fields are valid."""
    if not isinstance(block, dict):
        raise Invalid(at, "must be an object")
    for key in ("id", "kind"):
        if key not in block:
            raise Invalid(at + (key,), "required")
    ident(block["id"], at + ("id",))
    kind_name = text(block["kind"], at + ("kind",), min_chars=1, max_chars=32)
    if "title" in block:
        text(block["title"], at + ("title",), max_chars=MAX_TITLE)
    if "fallback" in block:
        text(block["fallback"], at + ("fallback",), max_bytes=MAX_FALLBACK_BYTES)
    kind = KINDS.get(kind_name)
    if kind is None:
        for key, value in block.items():
            if key not in COMMON_FIELDS:
                if not isinstance(key, str):
                    raise Invalid(at, "object keys must be strings")
                any_json(value, at + (key,))
        return block
    obj(block, at, COMMON_FIELDS | kind.fields, kind.required)
    kind.validate(block, at)
    return block


def item_spec(block: dict) -> ItemSpec | None:
    kind = KINDS.get(block.get("kind"))
    return kind.items if kind else None


def render_block(block: dict, style: Style) -> list[str]:
    kind = KINDS.get(block.get("kind"))
    if kind is None:
        if isinstance(block.get("fallback"), str):
            return block["fallback"].split("\n")
        return [f"[unsupported block: {block.get('kind')}]"]
    return kind.render(block, style)

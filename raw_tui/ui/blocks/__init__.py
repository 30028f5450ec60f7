"""How each panel block kind is drawn: one module per kind, named as the engine's
`panels/blocks/<kind>.py` that validates it (a test checks both sets agree). Adding a kind
is adding a module here and its name to KINDS.

Each module defines `rows(block) -> list[Row]`: lines of Rich `Text`, each tagged with the
name of the item it shows (the keyboard cursor, item actions, copying). A module may also
define `renderable(block, cursor_item)` when rows are not how it is shown (markdown,
mermaid). A kind this UI does not know shows its fields as text. Modules load on first use."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from rich.console import Group, RenderableType
from rich.text import Text

from .base import CURSOR_STYLE, Row, bar

KINDS = ("checklist", "steps", "progress", "key_value", "table", "timeline", "files",
         "mermaid", "markdown", "form")

__all__ = ["KINDS", "Row", "bar", "item_names", "item_text", "plain_block", "render_block"]

_loaded: dict[str, ModuleType] = {}


def kind_module(kind: object) -> ModuleType | None:
    if kind not in KINDS:
        return None
    module = _loaded.get(kind)
    if module is None:
        module = _loaded[kind] = import_module(f"{__name__}.{kind}")
    return module


def fallback_rows(block: dict) -> list[Row]:
    """A kind this UI does not draw: its fields as text."""
    from ..neutral import json_text

    rows: list[Row] = [(None, Text(f"[{block.get('kind')}]", style="dim"))]
    if isinstance(block.get("fallback"), str):  # the tool's own text for it (as Raw)
        rows.extend((None, Text(line)) for line in block["fallback"].split("\n"))
        return rows
    for key, value in block.items():
        if key in ("id", "kind", "title", "fallback"):
            continue
        shown = value if isinstance(value, str) else json_text(value)
        rows.append((None, Text(f"{key}: {shown}")))
    return rows


def rows_of(block: dict) -> list[Row]:
    module = kind_module(block.get("kind"))
    return module.rows(block) if module is not None else fallback_rows(block)


def item_names(block: dict) -> list[str]:
    """The names of a block's items in the order they are drawn (cursor order)."""
    if kind_module(block.get("kind")) is None:
        return []
    return [name for name, _ in rows_of(block) if name is not None]


def item_text(block: dict, item: str) -> str:
    for name, line in rows_of(block):
        if name == item:
            return line.plain.strip()
    return ""


def render_block(block: dict, cursor_item: str | None = None) -> RenderableType:
    """The body of one block (without its title); raises on a malformed block (the widget
    catches it and shows an error line)."""
    module = kind_module(block.get("kind"))
    if module is not None and hasattr(module, "renderable"):
        return module.renderable(block, cursor_item)
    lines = []
    for name, line in rows_of(block):
        if cursor_item is not None and name == cursor_item:
            line.stylize(CURSOR_STYLE)
        lines.append(line)
    return Group(*lines) if lines else Text("(empty)", style="dim")


def plain_block(block: dict) -> str:
    """A block as plain text (what OSC 52 copies)."""
    title = [str(block["title"])] if block.get("title") else []
    return "\n".join(title + [line.plain for _, line in rows_of(block)])

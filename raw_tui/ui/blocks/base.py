"""What the block drawers share: the row type, styles, status glyphs, a bar."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ...protocol.glyphs import LEVEL, STATUS

Row = tuple[str | None, Text]  # (item name or None, the line)

CURSOR_STYLE = "reverse"
STATUS_STYLE = {"pending": "", "in_progress": "bold yellow", "done": "green",
                "skipped": "dim", "blocked": "magenta", "failed": "bold red"}
LEVEL_STYLE = {"info": "", "success": "green", "warning": "yellow", "error": "bold red"}


def status_glyph(status: str) -> Text:
    return Text(STATUS.get(status, "?"), style=STATUS_STYLE.get(status, ""))


def level_glyph(level: str) -> Text:
    return Text(LEVEL.get(level, "•"), style=LEVEL_STYLE.get(level, ""))


def bar(done: float, total: float, cells: int = 20) -> Text:
    ratio = 0.0 if not total or total <= 0 else min(max(done / total, 0.0), 1.0)
    full = int(round(ratio * cells))
    out = Text("█" * full, style="green")
    out.append("░" * (cells - full), style="dim")
    return out


def number(value: Any) -> str:
    """A number without a needless `.0`."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def scalar(value: Any) -> str:
    """A key_value or table value as text: `—` for null, yes/no for booleans."""
    if value is None:
        return "—"
    if value is True or value is False:
        return "yes" if value else "no"
    return str(value)


PRIORITY_STYLE = {"high": "bold red", "medium": "yellow", "low": "dim"}


def children(item: dict) -> list:
    """A checklist item's children: Raw's `children` or raw-tui's `items`."""
    return item.get("children") or item.get("items") or []


def ref_text(ref: Any) -> str:
    """` (path:line)` for an item's `ref`, or nothing."""
    if not isinstance(ref, dict) or not ref.get("path"):
        return ""
    line = f":{ref['line']}" if ref.get("line") else ""
    return f" ({ref['path']}{line})"


def entries(block: dict) -> list:
    """The pairs of a key_value block or the paths of a files block: Raw's `entries` or
    raw-tui's `items`."""
    return block.get("entries") or block.get("items") or []

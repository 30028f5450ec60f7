"""How each panel block kind is drawn in the UI: rows of Rich `Text`, each row tagged with
the name of the item it shows (for the keyboard cursor and item actions). A kind missing here
falls back to the plain-text render of `raw_tui.panels`, and to its fields as text when the
panels package does not know it either. Form blocks are widgets (see widgets/form_view.py)."""

from __future__ import annotations

import json
from typing import Any, Callable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.text import Text

from ..panels.blocks import KINDS
from ..panels.blocks.key_value import show as show_value
from ..panels.textfmt import UNICODE
from . import mermaid

Row = tuple[str | None, Text]  # (item name or None, the line)

STATUS_STYLE = {"pending": "", "in_progress": "bold yellow", "done": "green",
                "skipped": "dim", "blocked": "magenta", "failed": "bold red"}
LEVEL_STYLE = {"info": "", "success": "green", "warning": "yellow", "error": "bold red"}
FILE_STYLE = {"added": "green", "modified": "yellow", "deleted": "red", "renamed": "cyan",
              "read": "dim", "unchanged": "dim"}
CURSOR_STYLE = "reverse"


def _glyph(status: str) -> Text:
    return Text(UNICODE.status.get(status, "?"), style=STATUS_STYLE.get(status, ""))


def checklist_rows(block: dict) -> list[Row]:
    rows: list[Row] = []

    def walk(items: list, depth: int) -> None:
        for item in items:
            status = item.get("status", "pending")
            line = Text("  " * depth)
            line.append_text(_glyph(status))
            line.append(" " + str(item.get("label", "")),
                        style="dim" if status in ("done", "skipped") else "")
            if item.get("note"):
                line.append(f" — {item['note']}", style="dim italic")
            rows.append((item.get("id"), line))
            walk(item.get("items") or [], depth + 1)

    walk(block.get("items") or [], 0)
    return rows


def steps_rows(block: dict) -> list[Row]:
    items = block.get("items") or []
    digits = len(str(len(items)))
    rows: list[Row] = []
    for n, item in enumerate(items, 1):
        status = item.get("status", "pending")
        line = Text(f"{n:>{digits}}. ")
        line.append_text(_glyph(status))
        line.append(" " + str(item.get("label", "")))
        if item.get("note"):
            line.append(f" ({item['note']})", style="dim")
        rows.append((item.get("id"), line))
    return rows


def bar(done: float, total: float, cells: int = 20) -> Text:
    ratio = 0.0 if not total or total <= 0 else min(max(done / total, 0.0), 1.0)
    full = int(round(ratio * cells))
    out = Text("█" * full, style="green")
    out.append("░" * (cells - full), style="dim")
    return out


def progress_rows(block: dict) -> list[Row]:
    done, total = block.get("done", 0), block.get("total", 0)
    unit = f" {block['unit']}" if block.get("unit") else ""
    line = bar(done, total)
    pct = int(min(max(done / total, 0), 1) * 100) if total else 0
    line.append(f" {_num(done)}/{_num(total)}{unit} ({pct}%)")
    rows: list[Row] = []
    if block.get("label"):
        rows.append((None, Text(str(block["label"]))))
    rows.append((None, line))
    return rows


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def key_value_rows(block: dict) -> list[Row]:
    items = block.get("items") or []
    room = min(max((len(str(i.get("key", ""))) for i in items), default=0), 24)
    rows: list[Row] = []
    for item in items:
        key = str(item.get("key", ""))
        line = Text(key[:room].ljust(room), style="bold")
        line.append("  " + show_value(item.get("value")).replace("\n", " "))
        rows.append((key, line))
    return rows


def table_rows(block: dict) -> list[Row]:
    lines = KINDS["table"].render(block, UNICODE)
    rows: list[Row] = [(None, Text(lines[0], style="bold")), (None, Text(lines[1], style="dim"))]
    for row, line in zip(block.get("rows") or [], lines[2:]):
        rows.append((row.get("id"), Text(line)))
    return rows


def timeline_rows(block: dict) -> list[Row]:
    """Newest first."""
    events = list(block.get("events") or [])
    room = max((len(e.get("time", "")) for e in events), default=0)
    rows: list[Row] = []
    for event in reversed(events):
        level = event.get("level", "info")
        line = Text(f"{event.get('time', ''):<{room}}  " if room else "", style="dim")
        line.append(UNICODE.level.get(level, "•"), style=LEVEL_STYLE.get(level, ""))
        line.append(" " + str(event.get("text", "")).replace("\n", " "))
        rows.append((event.get("id"), line))
    return rows


def files_rows(block: dict) -> list[Row]:
    letters = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R", "read": "r",
               "unchanged": " "}
    rows: list[Row] = []
    for item in block.get("items") or []:
        status = item.get("status", "unchanged")
        line = Text(letters.get(status, "?"), style=FILE_STYLE.get(status, ""))
        line.append(" " + str(item.get("path", "")))
        if item.get("note"):
            line.append(f"  {item['note']}", style="dim")
        rows.append((item.get("path"), line))
    return rows


def mermaid_rows(block: dict) -> list[Row]:
    source = str(block.get("source", ""))
    drawn = mermaid.draw(source)
    if drawn is not None:
        return [(None, Text(line)) for line in drawn]
    rows: list[Row] = [(None, Text("mermaid source (not drawn):", style="dim italic"))]
    rows.extend((None, Text(line)) for line in source.split("\n"))
    return rows


class FitDiagram:
    """A mermaid block drawn to fit the width it gets: the first drawing no wider than the
    space (lines never wrap, which would break the boxes), otherwise the source as text."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.candidates = mermaid.drawings(source)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for lines in self.candidates:
            if max((cell_len(line) for line in lines), default=0) <= options.max_width:
                for line in lines:
                    yield Text(line, no_wrap=True, overflow="crop")
                return
        yield Text("mermaid source (not drawn):" if not self.candidates else
                   "mermaid source (too wide to draw here):", style="dim italic")
        for line in self.source.split("\n"):
            yield Text(line)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widths = [max((cell_len(line) for line in lines), default=0)
                  for lines in self.candidates]
        widest = max(widths + [cell_len(line) for line in self.source.split("\n")])
        return Measurement(1, widest)


def fallback_rows(block: dict) -> list[Row]:
    """A kind this UI does not draw: the panels package's plain-text render, or the fields."""
    kind = KINDS.get(block.get("kind"))
    if kind is not None:
        return [(None, Text(line)) for line in kind.render(block, UNICODE)]
    rows: list[Row] = [(None, Text(f"[{block.get('kind')}]", style="dim"))]
    for key, value in block.items():
        if key in ("id", "kind", "title"):
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        rows.append((None, Text(f"{key}: {shown}")))
    return rows


ROWS: dict[str, Callable[[dict], list[Row]]] = {
    "checklist": checklist_rows, "steps": steps_rows, "progress": progress_rows,
    "key_value": key_value_rows, "table": table_rows, "timeline": timeline_rows,
    "files": files_rows, "mermaid": mermaid_rows,
}


def item_names(block: dict) -> list[str]:
    """The names of a block's items in the order they are drawn (cursor order)."""
    rows = ROWS.get(block.get("kind"))
    if rows is None:
        return []
    return [name for name, _ in rows(block) if name is not None]


def render_block(block: dict, cursor_item: str | None = None) -> RenderableType:
    """The body of one block (without its title); raises on a malformed block (the widget
    catches it and shows an error line)."""
    kind = block.get("kind")
    if kind == "markdown":
        from rich.markdown import Markdown  # a slow import: only when a panel needs it

        return Markdown(str(block.get("text", "")))
    if kind == "mermaid":
        return FitDiagram(str(block.get("source", "")))
    rows = ROWS.get(kind, fallback_rows)(block)
    lines = []
    for name, line in rows:
        if cursor_item is not None and name == cursor_item:
            line.stylize(CURSOR_STYLE)
        lines.append(line)
    return Group(*lines) if lines else Text("(empty)", style="dim")


def plain_block(block: dict) -> str:
    """A block as plain text (what OSC 52 copies)."""
    kind = KINDS.get(block.get("kind"))
    title = [str(block["title"])] if block.get("title") else []
    if block.get("kind") in ROWS:
        return "\n".join(title + [line.plain for _, line in ROWS[block["kind"]](block)])
    if kind is not None:
        return "\n".join(title + kind.render(block, UNICODE))
    return "\n".join(title + [line.plain for _, line in fallback_rows(block)])

"""`table`: a header, a rule, then one row per table row (named by its id), columns aligned
as declared, cells clipped to MAX_CELL cells."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from .base import Row, scalar

MAX_CELL = 40
RULE = "─"


def _clip(text: str) -> str:
    text = " ".join(text.split("\n"))
    if cell_len(text) <= MAX_CELL:
        return text
    return set_cell_size(text, MAX_CELL - 1) + "…"


def _pad(text: str, cells: int, align: str) -> str:
    gap = max(cells - cell_len(text), 0)
    if align == "right":
        return " " * gap + text
    if align == "center":
        return " " * (gap // 2) + text + " " * (gap - gap // 2)
    return text + " " * gap


def rows(block: dict) -> list[Row]:
    columns = block.get("columns") or []
    table_rows = block.get("rows") or []
    grid = [[_clip(scalar(row.get("cells", {})[c["id"]])) if c["id"] in row.get("cells", {})
             else "" for c in columns] for row in table_rows]
    heads = [_clip(str(c.get("label", ""))) for c in columns]
    widths = [max([cell_len(heads[i])] + [cell_len(r[i]) for r in grid])
              for i in range(len(columns))]
    aligns = [c.get("align", "left") for c in columns]

    def line(cells: list[str]) -> str:
        return "  ".join(_pad(cell, widths[i], aligns[i]) for i, cell in enumerate(cells)).rstrip()

    out: list[Row] = [(None, Text(line(heads), style="bold")),
                      (None, Text("  ".join(RULE * w for w in widths), style="dim"))]
    out.extend((row.get("id"), Text(line(cells))) for row, cells in zip(table_rows, grid))
    return out

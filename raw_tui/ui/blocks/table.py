"""`table`: a header, a rule, then one row per table row (named by its id), columns aligned
as declared (Raw's `start`/`end` are left/right), cells clipped to MAX_CELL cells; rows with
a `status` get its glyph first, a row's `ref` follows the row."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from .base import Row, ref_text, scalar, status_glyph

MAX_CELL = 40
SIDES = {"start": "left", "end": "right"}
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
    aligns = [SIDES.get(c.get("align"), c.get("align", "left")) for c in columns]
    glyphs = any("status" in row for row in table_rows)

    def line(cells: list[str]) -> str:
        return "  ".join(_pad(cell, widths[i], aligns[i]) for i, cell in enumerate(cells)).rstrip()

    lead = "  " if glyphs else ""
    out: list[Row] = [(None, Text(lead + line(heads), style="bold")),
                      (None, Text(lead + "  ".join(RULE * w for w in widths), style="dim"))]
    for row, cells in zip(table_rows, grid):
        text = Text()
        if glyphs:
            text.append_text(status_glyph(row["status"]) if "status" in row else Text(" "))
            text.append(" ")
        text.append(line(cells))
        if ref_text(row.get("ref")):  # after the row: columns keep their widths
            text.append(ref_text(row.get("ref")), style="cyan")
        out.append((row.get("id"), text))
    return out

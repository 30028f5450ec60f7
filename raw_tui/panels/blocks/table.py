"""`table`: 1–8 columns and rows named by id; a row's `cells` maps column ids to values."""

from __future__ import annotations

from ..errors import Invalid
from ..fields import (At, array, choice, item_ident, obj, ref, ref_text, scalar, text,
                      unique)
from ..limits import MAX_KEY, MAX_LABEL, MAX_TABLE_COLUMNS, MAX_TABLE_ROWS
from ..textfmt import Style, clip, pad, width
from .base import BlockKind, ItemSpec, validate_items
from .checklist import STATUSES
from .key_value import show

_COLUMN = frozenset({"id", "label", "align"})
_ROW = frozenset({"id", "cells", "status", "ref"})
ALIGNS = ("left", "right", "center", "start", "end")  # Raw's start/end are left/right
SIDES = {"start": "left", "end": "right"}
MAX_CELL_WIDTH = 40


def validate_row(row: object, at: At, depth: int, block: dict) -> None:
    obj(row, at, _ROW, ("id", "cells"))
    item_ident(row["id"], at + ("id",))
    if "status" in row:
        choice(row["status"], at + ("status",), STATUSES)
    if "ref" in row:
        ref(row["ref"], at + ("ref",))
    cells = row["cells"]
    if not isinstance(cells, dict):
        raise Invalid(at + ("cells",), "must be an object")
    columns = {c["id"] for c in block["columns"]}
    for key, value in cells.items():
        if key not in columns:
            raise Invalid(at + ("cells", key), "no such column")
        scalar(value, at + ("cells", key), max_chars=MAX_LABEL)


ROWS = ItemSpec(fields=("rows",), key="id", remove_by="ids", limit=MAX_TABLE_ROWS, what="rows",
                validate_item=validate_row)


def validate(block: dict, at: At) -> None:
    columns = array(block["columns"], at + ("columns",), min_items=1,
                    max_items=MAX_TABLE_COLUMNS, what="columns")
    for i, column in enumerate(columns):
        here = at + ("columns", i)
        obj(column, here, _COLUMN, ("id", "label"))
        item_ident(column["id"], here + ("id",))
        text(column["label"], here + ("label",), max_chars=MAX_KEY)
        if "align" in column:
            choice(column["align"], here + ("align",), ALIGNS)
    unique((c["id"], at + ("columns", i, "id")) for i, c in enumerate(columns))
    validate_items(block, ROWS, at)


def align(column: dict) -> str:
    """left, right or center (Raw's start and end are left and right)."""
    value = column.get("align", "left")
    return SIDES.get(value, value)


def render(block: dict, style: Style) -> list[str]:
    columns = block["columns"]
    rows = block.get("rows") or []
    grid = [[clip(show(row["cells"][c["id"]]) if c["id"] in row["cells"] else "",
                  MAX_CELL_WIDTH, style.ellipsis) for c in columns] for row in rows]
    heads = [clip(c["label"], MAX_CELL_WIDTH, style.ellipsis) for c in columns]
    aligns = [align(c) for c in columns]
    if any("status" in row for row in rows):  # a status column first, as Raw's
        grid = [[style.status[row["status"]] if "status" in row else ""] + cells
                for row, cells in zip(rows, grid)]
        heads, aligns = [""] + heads, ["left"] + aligns
    widths = [max([width(heads[i])] + [width(r[i]) for r in grid]) for i in range(len(heads))]

    def line(cells: list[str]) -> str:
        return "  ".join(pad(cell, widths[i], aligns[i]) for i, cell in enumerate(cells)).rstrip()

    out = [line(heads), "  ".join(style.rule * w for w in widths)]
    out.extend(line(cells) + ref_text(row.get("ref")) for row, cells in zip(rows, grid))
    return out


KIND = BlockKind(name="table", fields=frozenset({"columns", "rows"}), required=("columns",),
                 validate=validate, render=render, items=ROWS)

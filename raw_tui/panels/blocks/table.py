"""`table`: 1–8 columns and rows named by id; a row's `cells` maps column ids to values."""

from __future__ import annotations

from ..errors import Invalid
from ..fields import At, array, choice, ident, obj, scalar, text, unique
from ..limits import MAX_KEY, MAX_LABEL, MAX_TABLE_COLUMNS, MAX_TABLE_ROWS
from ..textfmt import Style, clip, pad, width
from .base import BlockKind, ItemSpec, validate_items
from .key_value import show

_COLUMN = frozenset({"id", "label", "align"})
_ROW = frozenset({"id", "cells"})
ALIGNS = ("left", "right", "center")
MAX_CELL_WIDTH = 40


def validate_row(row: object, at: At, depth: int, block: dict) -> None:
    obj(row, at, _ROW, ("id", "cells"))
    ident(row["id"], at + ("id",))
    cells = row["cells"]
    if not isinstance(cells, dict):
        raise Invalid(at + ("cells",), "must be an object")
    columns = {c["id"] for c in block["columns"]}
    for key, value in cells.items():
        if key not in columns:
            raise Invalid(at + ("cells", key), "no such column")
        scalar(value, at + ("cells", key), max_chars=MAX_LABEL)


ROWS = ItemSpec(field="rows", key="id", remove_by="ids", limit=MAX_TABLE_ROWS, what="rows",
                validate_item=validate_row)


def validate(block: dict, at: At) -> None:
    columns = array(block["columns"], at + ("columns",), min_items=1,
                    max_items=MAX_TABLE_COLUMNS, what="columns")
    for i, column in enumerate(columns):
        here = at + ("columns", i)
        obj(column, here, _COLUMN, ("id", "label"))
        ident(column["id"], here + ("id",))
        text(column["label"], here + ("label",), max_chars=MAX_KEY)
        if "align" in column:
            choice(column["align"], here + ("align",), ALIGNS)
    unique((c["id"], at + ("columns", i, "id")) for i, c in enumerate(columns))
    validate_items(block, ROWS, at)


def render(block: dict, style: Style) -> list[str]:
    columns = block["columns"]
    rows = block.get("rows") or []
    grid = [[clip(show(row["cells"][c["id"]]) if c["id"] in row["cells"] else "",
                  MAX_CELL_WIDTH, style.ellipsis) for c in columns] for row in rows]
    heads = [clip(c["label"], MAX_CELL_WIDTH, style.ellipsis) for c in columns]
    widths = [max([width(heads[i])] + [width(r[i]) for r in grid]) for i in range(len(columns))]
    aligns = [c.get("align", "left") for c in columns]

    def line(cells: list[str]) -> str:
        return "  ".join(pad(cell, widths[i], aligns[i]) for i, cell in enumerate(cells)).rstrip()

    out = [line(heads), "  ".join(style.rule * w for w in widths)]
    out.extend(line(cells) for cells in grid)
    return out


KIND = BlockKind(name="table", fields=frozenset({"columns", "rows"}), required=("columns",),
                 validate=validate, render=render, items=ROWS)

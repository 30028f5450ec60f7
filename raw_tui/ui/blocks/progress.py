"""`progress`: a label, then a bar with the amount and the percentage (`value`/`max` or
`done`/`total`); an indeterminate one is a still bar that says it is in progress. Nothing here
animates: an idle screen sends no bytes (docs/decisions.md on spinners)."""

from __future__ import annotations

from rich.text import Text

from .base import Row, bar, number

IDLE = "▒"


def rows(block: dict) -> list[Row]:
    out: list[Row] = []
    if block.get("label"):
        out.append((None, Text(str(block["label"]))))
    if block.get("indeterminate") is True:
        line = Text(IDLE * 20, style="yellow")
        line.append(" in progress", style="dim italic")
        out.append((None, line))
        return out
    if "max" in block:
        done, total, unit = block.get("value", 0), block.get("max", 0), ""
    else:
        done, total = block.get("done", 0), block.get("total", 0)
        unit = f" {block['unit']}" if block.get("unit") else ""
    line = bar(done, total)
    pct = int(min(max(done / total, 0), 1) * 100) if total else 0
    line.append(f" {number(done)}/{number(total)}{unit} ({pct}%)")
    out.append((None, line))
    return out

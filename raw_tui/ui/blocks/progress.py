"""`progress`: a label, then a bar with done/total and the percentage."""

from __future__ import annotations

from rich.text import Text

from .base import Row, bar, number


def rows(block: dict) -> list[Row]:
    done, total = block.get("done", 0), block.get("total", 0)
    unit = f" {block['unit']}" if block.get("unit") else ""
    line = bar(done, total)
    pct = int(min(max(done / total, 0), 1) * 100) if total else 0
    line.append(f" {number(done)}/{number(total)}{unit} ({pct}%)")
    out: list[Row] = []
    if block.get("label"):
        out.append((None, Text(str(block["label"]))))
    out.append((None, line))
    return out

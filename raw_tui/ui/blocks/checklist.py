"""`checklist`: nested items, each with a status glyph."""

from __future__ import annotations

from rich.text import Text

from .base import Row, status_glyph


def rows(block: dict) -> list[Row]:
    out: list[Row] = []

    def walk(items: list, depth: int) -> None:
        for item in items:
            status = item.get("status", "pending")
            line = Text("  " * depth)
            line.append_text(status_glyph(status))
            line.append(" " + str(item.get("label", "")),
                        style="dim" if status in ("done", "skipped") else "")
            if item.get("note"):
                line.append(f" — {item['note']}", style="dim italic")
            out.append((item.get("id"), line))
            walk(item.get("items") or [], depth + 1)

    walk(block.get("items") or [], 0)
    return out

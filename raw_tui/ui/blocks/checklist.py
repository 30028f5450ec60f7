"""`checklist`: nested items (Raw's `children` or raw-tui's `items`), each with a status
glyph, its priority, its note and where it points (`ref`)."""

from __future__ import annotations

from rich.text import Text

from .base import PRIORITY_STYLE, Row, children, ref_text, status_glyph


def rows(block: dict) -> list[Row]:
    out: list[Row] = []

    def walk(items: list, depth: int) -> None:
        for item in items:
            status = item.get("status", "pending")
            line = Text("  " * depth)
            line.append_text(status_glyph(status))
            line.append(" " + str(item.get("label", "")),
                        style="dim" if status in ("done", "skipped") else "")
            if item.get("priority"):
                line.append(f" [{item['priority']}]",
                            style=PRIORITY_STYLE.get(item["priority"], ""))
            if item.get("note"):
                line.append(f" — {item['note']}", style="dim italic")
            if ref_text(item.get("ref")):
                line.append(ref_text(item.get("ref")), style="cyan")
            out.append((item.get("id"), line))
            walk(children(item), depth + 1)

    walk(block.get("items") or [], 0)
    return out

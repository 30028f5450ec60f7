"""`files`: one line per path with a status letter (A M D R r), named by the path."""

from __future__ import annotations

from rich.text import Text

from .base import Row

LETTERS = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R", "read": "r",
           "unchanged": " "}
STYLES = {"added": "green", "modified": "yellow", "deleted": "red", "renamed": "cyan",
          "read": "dim", "unchanged": "dim"}


def rows(block: dict) -> list[Row]:
    out: list[Row] = []
    for item in block.get("items") or []:
        status = item.get("status", "unchanged")
        line = Text(LETTERS.get(status, "?"), style=STYLES.get(status, ""))
        line.append(" " + str(item.get("path", "")))
        if item.get("note"):
            line.append(f"  {item['note']}", style="dim")
        out.append((item.get("path"), line))
    return out

"""`files`: one line per path with a status letter (A M D R r), named by the path (Raw's
`entries` or raw-tui's `items`), with its line, label and note."""

from __future__ import annotations

from rich.text import Text

from .base import Row, entries

LETTERS = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R", "read": "r",
           "unchanged": " ", "referenced": "·"}
STYLES = {"added": "green", "modified": "yellow", "deleted": "red", "renamed": "cyan",
          "read": "dim", "unchanged": "dim", "referenced": "cyan"}


def rows(block: dict) -> list[Row]:
    out: list[Row] = []
    default = "referenced" if "entries" in block else "unchanged"
    for item in entries(block):
        status = item.get("status", default)
        line = Text(LETTERS.get(status, "?"), style=STYLES.get(status, ""))
        line.append(" " + str(item.get("path", "")))
        if item.get("line"):
            line.append(f":{item['line']}", style="dim")
        for key in ("label", "note"):
            if item.get(key):
                line.append(f"  {item[key]}", style="dim")
        out.append((item.get("path"), line))
    return out

"""`form`: a widget when it is a question (widgets/form_view.py); as text, its fields with
their options (what is copied, and what a form outside an interaction shows)."""

from __future__ import annotations

from rich.text import Text

from .base import Row


def rows(block: dict) -> list[Row]:
    lines: list[str] = []
    for field in block.get("fields") or []:
        mark = " *" if field.get("required") else ""
        lines.append(f"{field.get('label', '')}{mark}")
        if field.get("description"):
            lines.append(f"  {field['description']}")
        if field.get("kind") == "text":
            hint = field.get("placeholder") or ("(text)" if not field.get("multiline")
                                                else "(text, several lines)")
            lines.append(f"  [ {hint} ]")
            continue
        box = "( )" if field.get("kind") == "single_select" else "[ ]"
        lines.extend(f"  {box} {option.get('label', '')}" for option in field.get("options") or [])
    return [(None, Text(line)) for line in lines]

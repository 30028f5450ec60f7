"""`markdown`: drawn by Rich's Markdown (a slow import: only when a panel needs it)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from .base import Row


def rows(block: dict) -> list[Row]:
    text = str(block.get("text", ""))
    return [(None, Text(line)) for line in text.split("\n")] if text else []


def renderable(block: dict, cursor_item: str | None = None) -> RenderableType:
    from rich.markdown import Markdown

    return Markdown(str(block.get("text", "")))

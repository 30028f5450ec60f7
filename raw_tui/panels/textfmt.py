"""Plain-text helpers for the panel render: display widths, padding, bars and glyphs."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from ..protocol import glyphs


def width(text: str) -> int:
    """Terminal cells taken by `text` (wide East Asian characters count two, marks zero)."""
    if text.isascii():
        return len(text)
    total = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def clip(text: str, cells: int, ellipsis: str = "…") -> str:
    """`text` on one line, at most `cells` wide."""
    text = " ".join(text.split("\n"))
    if width(text) <= cells:
        return text
    out, used, room = [], 0, max(cells - width(ellipsis), 0)
    for ch in text:
        w = width(ch)
        if used + w > room:
            break
        out.append(ch)
        used += w
    return "".join(out) + ellipsis


def pad(text: str, cells: int, align: str = "left") -> str:
    gap = max(cells - width(text), 0)
    if align == "right":
        return " " * gap + text
    if align == "center":
        return " " * (gap // 2) + text + " " * (gap - gap // 2)
    return text + " " * gap


@dataclass(frozen=True)
class Style:
    """Glyphs of one render: Unicode (default) or plain ASCII."""

    unicode: bool = True
    status: dict[str, str] = field(default_factory=dict)
    level: dict[str, str] = field(default_factory=dict)
    bar_full: str = "█"
    bar_empty: str = "░"
    bar_idle: str = "▒"  # an indeterminate bar (still: it never animates)
    bullet: str = "•"
    rule: str = "─"
    ellipsis: str = "…"

    def bar(self, done: float, total: float, cells: int = 20) -> str:
        ratio = 0.0 if total <= 0 else min(max(done / total, 0.0), 1.0)
        full = int(round(ratio * cells))
        bar = self.bar_full * full + self.bar_empty * (cells - full)
        return bar if self.unicode else f"[{bar}]"


UNICODE = Style(unicode=True, status=dict(glyphs.STATUS), level=dict(glyphs.LEVEL))

ASCII = Style(
    unicode=False,
    status={"pending": "[ ]", "in_progress": "[~]", "done": "[x]", "skipped": "[-]",
            "blocked": "[!]", "failed": "[X]"},
    level={"info": "-", "success": "+", "warning": "!", "error": "x"},
    bar_full="#",
    bar_empty=".",
    bar_idle="~",
    bullet="-",
    rule="-",
    ellipsis="...",
)


def percent(done: float, total: float) -> str:
    if total <= 0:
        return "0%"
    return f"{int(min(max(done / total, 0), 1) * 100)}%"


def num(value: float) -> str:
    """A number without a needless `.0`."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)

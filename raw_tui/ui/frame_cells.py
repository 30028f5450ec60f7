"""Cells: what one position of the screen holds, and the grids of them that frames are made of.

A cell is its text, its SGR parameters and its link; `strip_cells` turns Textual's strips
(lines of segments) into cells, and a blank that shows only its background is held as
just that (raw_tui/ui/frame_pen.py `settled_blank`). raw_tui/ui/frames.py diffs grids of
cells into the bytes of a frame.
"""

from __future__ import annotations

import re
from typing import Iterable

from rich.cells import get_character_cell_size
from rich.color import ColorSystem
from rich.style import Style
from textual.strip import Strip

from .frame_pen import settled_blank
from .textual_private import rich_style_sgr

Cell = tuple[str, str, str]  # (text, SGR parameters, link "id;url" or "")
Row = list[Cell]
BLANK: Cell = (" ", "", "")  # what a line the terminal scrolled in holds
WIDE_TAIL = ""  # the second cell of a two-cell character

# what a cell must never send a terminal: C0 and C1 controls, DEL, bidirectional format
# characters. Text from outside is neutralised before it reaches a widget; this is the
# backstop for what a widget makes of it (markdown decodes `%1B` in a link's text).
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class StyleCodes:
    """A style's SGR parameters and link, computed once per style object."""

    def __init__(self, color_system: ColorSystem | None) -> None:
        self.color_system = color_system or ColorSystem.TRUECOLOR
        self._cache: dict[Style, tuple[str, str]] = {}

    def __call__(self, style: Style | None) -> tuple[str, str]:
        if style is None:
            return "", ""
        codes = self._cache.get(style)
        if codes is None:
            if len(self._cache) > 4096:  # styles carry widget metadata: many are one-offs
                self._cache.clear()
            sgr = rich_style_sgr(style)
            if sgr is None:
                sgr = Strip.render_ansi(style, self.color_system)
            link = f"{style.link_id};{style.link}" if style.link and \
                not UNSAFE.search(style.link) else ""
            codes = self._cache[style] = (sgr, link)
        return codes


def strip_cells(strips: Iterable[Strip], codes: StyleCodes) -> Row:
    """The cells of a line given as strips side by side; a blank that shows only its
    background holds only that (`settled_blank`)."""
    cells: Row = []
    append, extend = cells.append, cells.extend
    for strip in strips:
        for text, style, control in strip:
            if control or not text:
                continue
            sgr, link = codes(style)
            blank = settled_blank(sgr, link)
            if text.isascii() and text.isprintable():
                if blank[1] != sgr and " " in text:
                    extend([blank if char == " " else (char, sgr, link) for char in text])
                else:
                    extend([(char, sgr, link) for char in text])
                continue
            if UNSAFE.search(text):  # zero cells wide as laid out: dropped, nothing moves
                text = UNSAFE.sub("", text)
            for char in text:
                width = get_character_cell_size(char)
                if width == 1:
                    append(blank if char == " " else (char, sgr, link))
                elif width == 2:
                    append((char, sgr, link))
                    append((WIDE_TAIL, sgr, link))
                elif cells and width == 0:  # a combining mark joins the cell before it
                    last = len(cells) - 1
                    if cells[last][0] == WIDE_TAIL and last:
                        last -= 1
                    joined = cells[last]
                    if joined[0] == " ":  # not a blank any more: it takes the mark's style
                        joined = (" ", sgr, link)
                    cells[last] = (joined[0] + char, joined[1], joined[2])
    return cells


def blank_grid(width: int, height: int) -> list[Row]:
    return [[BLANK] * width for _ in range(height)]


def put(grid: list[Row], x: int, y: int, cells: Row) -> None:
    """Lay `cells` into row `y` from column `x`, clipped to the grid."""
    if not 0 <= y < len(grid) or x < 0:
        return
    row = grid[y]
    end = min(len(row), x + len(cells))
    if end > x:
        row[x:end] = cells[: end - x]


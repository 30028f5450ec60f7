"""The bytes of one frame as they are written: cursor moves, pens and links, cells, erases.

`FrameText` tracks the terminal's pen (style, link) and cursor as it writes, so that each
move is the shortest sequence from where the cursor is and each style change writes only
what changed (raw_tui/ui/frame_pen.py). raw_tui/ui/frames.py decides what to write.
"""

from __future__ import annotations

from rich.cells import get_character_cell_size

from .frame_cells import WIDE_TAIL, Cell, Row
from .frame_pen import UNSEEN_ON_BLANK, blank_background, pen, sgr_change

Piece = tuple[int, int, int, bool]  # (line, start, end, erased rather than written)


def decimal(n: int) -> str:
    return "" if n == 1 else str(n)


class FrameText:
    """The bytes of one frame, with the terminal's pen (style, link, cursor) tracked."""

    def __init__(self, width: int = 0) -> None:
        self.parts: list[str] = []
        self.width = width  # columns: the cursor is not known after the last one is written
        self.sgr: str | None = None  # None: not known
        self.link: str | None = None
        self.x = self.y = -1  # the cursor; -1: not known

    def fork(self) -> "FrameText":
        """A copy to go on writing from here a different way."""
        other = FrameText(self.width)
        other.parts = self.parts[:]
        other.sgr, other.link, other.x, other.y = self.sgr, self.link, self.x, self.y
        return other

    def size(self) -> int:
        return sum(len(part) for part in self.parts)

    def move(self, x: int, y: int) -> None:
        """Move the cursor with the shortest sequence that gets there from where it is."""
        if (x, y) != (self.x, self.y):
            self.parts.append(self.move_text(x, y))
            self.x, self.y = x, y

    def move_text(self, x: int, y: int) -> str:
        """The shortest sequence from the cursor to `(x, y)`: CUP, or from where the cursor
        is (a line up or down, CR, a column right or left); never past the last line (a
        line feed there would scroll)."""
        if (x, y) == (self.x, self.y):
            return ""
        best = f"\x1b[{y + 1};{x + 1}H" if x else f"\x1b[{y + 1}H"
        if self.y < 0:
            return best
        dy = y - self.y
        # a line down or up: IND and RI (two bytes) scroll only at a margin, and there is
        # none but the screen's edges here (`scroll` resets the region)
        vertical = "" if not dy else "\x1bM" if dy == -1 else "\x1bD" if dy == 1 else \
            f"\x1b[{-dy}A" if dy < 0 else f"\x1b[{dy}B"
        across = "\r" if not x else f"\x1b[{x + 1}G"
        if self.x >= 0 and x != self.x:  # (-1 after the last column: no relative move)
            dx = x - self.x
            across = min(across, f"\x1b[{decimal(dx)}C" if dx > 0 else
                         "\b" * -dx if dx >= -3 else f"\x1b[{-dx}D", key=len)
        elif x == self.x:
            across = ""
        best = min(best, vertical + across, key=len)
        if dy == 1:
            best = min(best, "\r\n" + (f"\x1b[{decimal(x)}C" if x else ""), key=len)
        return best

    def style(self, sgr: str, link: str) -> None:
        parts = self.parts
        if link != self.link:
            if self.link:
                parts.append("\x1b]8;;\x1b\\")
            if link:
                link_id, _, url = link.partition(";")
                parts.append(f"\x1b]8;id={link_id};{url}\x1b\\")
            self.link = link
        if sgr != self.sgr:
            change = sgr_change(self.sgr, sgr)
            if change:
                parts.append(f"\x1b[{change}m")
            self.sgr = sgr

    def blank_style(self, background: str) -> None:
        """A pen that draws blanks on `background`: the one there is when it does (its
        foreground, bold and italic do not show on a blank), else the nearest one."""
        if self.link:
            self.style(self.sgr or "", "")
        sgr = self.blank_sgr(background)
        if sgr is not None:
            self.style(sgr, "")

    def blank_sgr(self, background: str) -> str | None:
        """The pen `blank_style` takes (None: the one there is)."""
        now = pen(self.sgr) if self.sgr is not None else None
        if now is None:
            return background
        if now.colors[1] == background and not now.seen_on_blank:
            return None
        attrs = [code for code in now.attrs if code in UNSEEN_ON_BLANK]
        near = ";".join(part for part in (*attrs, now.colors[0], background, now.colors[2])
                        if part)
        return near if len(sgr_change(self.sgr, near)) < len(sgr_change(self.sgr, background)) \
            else background

    def pen_cost(self, cell: Cell) -> int:
        """About how many characters taking up the pen of `cell` costs."""
        background = blank_background(cell)
        if background is not None:
            sgr = self.blank_sgr(background)
            cost = 0 if sgr is None else len(sgr_change(self.sgr, sgr)) + 3
            return cost + (6 if self.link else 0)
        cost = 0 if cell[1] == self.sgr else len(sgr_change(self.sgr, cell[1])) + 3
        return cost + (0 if cell[2] == self.link else 6 + len(cell[2]))

    def cells(self, cells: Row) -> None:
        parts = self.parts
        for cell in cells:
            text, sgr, link = cell
            if text == WIDE_TAIL:
                continue
            if link != self.link or sgr != self.sgr:
                background = blank_background(cell) if text == " " else None
                if background is not None:
                    self.blank_style(background)
                else:
                    self.style(sgr, link)
            parts.append(text)
            self.x += get_character_cell_size(text[0]) if not text.isascii() else 1
        if self.width and self.x >= self.width:
            self.x = -1  # at the last column: where the next character goes is not certain

    def piece(self, row: Row, piece: "Piece") -> None:
        y, start, end, erase = piece
        self.move(start, y)
        if erase:  # ECH fills the cells with the pen; the cursor stays where it is
            self.blank_style(blank_background(row[start]))  # type: ignore[arg-type]
            self.parts.append(f"\x1b[{decimal(end - start)}X")
        else:
            self.cells(row[start:end])

    def reset_pen(self) -> None:
        if self.link:
            self.parts.append("\x1b]8;;\x1b\\")
        self.link = ""
        if self.sgr != "":
            self.parts.append("\x1b[0m")
            self.sgr = ""

    def text(self) -> str:
        return "".join(self.parts)

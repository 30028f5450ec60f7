"""Frames as cells: what the terminal shows, what it should show, and the bytes between.

Textual writes every region a widget repaints, whole, and every frame it draws. Over a slow
link that is most of the screen per streamed word (the chat moves up a line: every line of it
is written again). Here the screen is kept as a grid of cells twice: `target`, what Textual
last drew, and `shown`, what the terminal was last sent. A frame is the difference: the
terminal's own scrolling where lines moved (a scroll region and index), then only the cells
that differ, each style change written once. The grids are exact: a frame written from them
leaves the terminal with the same cells a full repaint would (tests/ui/test_frames.py checks
that through a terminal emulator).

No Textual here beyond `Strip` (a line of segments): `raw_tui/ui/terminal_output.py` feeds
Textual's updates in and writes the frames out.
"""

from __future__ import annotations

import re
from typing import Iterable

from rich.cells import get_character_cell_size
from rich.color import ColorSystem
from rich.style import Style
from textual.strip import Strip

from .textual_private import rich_style_sgr

Cell = tuple[str, str, str]  # (text, SGR parameters, link "id;url" or "")
Row = list[Cell]
BLANK: Cell = (" ", "", "")  # what a line the terminal scrolled in holds
WIDE_TAIL = ""  # the second cell of a two-cell character

# what a cell must never send a terminal: C0 and C1 controls, DEL, bidirectional format
# characters. Text from outside is neutralised before it reaches a widget; this is the
# backstop for what a widget makes of it (markdown decodes `%1B` in a link's text).
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

GAP = 4  # unchanged cells between two changed runs rewritten rather than a cursor move
SCROLL_GAIN = 24  # cells a scroll must save before it is used (its sequence costs ~20 bytes)
MIN_VOTES = 3  # line pieces that must agree on a scroll distance before it is tried
PIECE = 8  # columns per piece when looking for lines that moved


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
    """The cells of a line given as strips side by side."""
    cells: Row = []
    append, extend = cells.append, cells.extend
    for strip in strips:
        for text, style, control in strip:
            if control or not text:
                continue
            sgr, link = codes(style)
            if text.isascii() and text.isprintable():
                extend([(char, sgr, link) for char in text])
                continue
            if UNSAFE.search(text):  # zero cells wide as laid out: dropped, nothing moves
                text = UNSAFE.sub("", text)
            for char in text:
                width = get_character_cell_size(char)
                if width == 1:
                    append((char, sgr, link))
                elif width == 2:
                    append((char, sgr, link))
                    append((WIDE_TAIL, sgr, link))
                elif cells and width == 0:  # a combining mark joins the cell before it
                    last = len(cells) - 1
                    if cells[last][0] == WIDE_TAIL and last:
                        last -= 1
                    joined = cells[last]
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


class FrameText:
    """The bytes of one frame, with the terminal's pen (style, link, cursor) tracked."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.sgr: str | None = None  # None: not known
        self.link: str | None = None
        self.x = self.y = -1  # the cursor; -1: not known

    def move(self, x: int, y: int) -> None:
        if (x, y) != (self.x, self.y):
            self.parts.append(f"\x1b[{y + 1};{x + 1}H")
            self.x, self.y = x, y

    def cells(self, cells: Row) -> None:
        parts = self.parts
        for text, sgr, link in cells:
            if text == WIDE_TAIL:
                continue
            if link != self.link:
                if self.link:
                    parts.append("\x1b]8;;\x1b\\")
                if link:
                    link_id, _, url = link.partition(";")
                    parts.append(f"\x1b]8;id={link_id};{url}\x1b\\")
                self.link = link
            if sgr != self.sgr:
                parts.append(f"\x1b[0;{sgr}m" if sgr else "\x1b[0m")
                self.sgr = sgr
            parts.append(text)
            self.x += get_character_cell_size(text[0]) if not text.isascii() else 1

    def reset_pen(self) -> None:
        if self.link:
            self.parts.append("\x1b]8;;\x1b\\")
        self.link = ""
        if self.sgr != "":
            self.parts.append("\x1b[0m")
            self.sgr = ""

    def text(self) -> str:
        return "".join(self.parts)


def changed_runs(old: Row, new: Row) -> list[tuple[int, int]]:
    """Spans `[start, end)` of `new` that differ from `old`, runs closer than GAP joined,
    widened so that no run starts or ends inside a two-cell character."""
    runs: list[tuple[int, int]] = []
    width = len(new)
    x = 0
    while x < width:
        if old[x] == new[x]:
            x += 1
            continue
        start = x
        end = x + 1
        x += 1
        while x < width:
            if old[x] != new[x]:
                end = x + 1
            elif x - end >= GAP:
                break
            x += 1
        if start > 0 and new[start][0] == WIDE_TAIL:
            start -= 1
        if end < width and new[end][0] == WIDE_TAIL:
            end += 1
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))
    return runs


def differing(a: Row, b: Row) -> int:
    return sum(1 for p, q in zip(a, b) if p != q)


def scroll_distance(shown: list[Row], target: list[Row]) -> int:
    """The distance lines moved up between `shown` and `target`, by votes of line pieces
    that are not all one cell (blank stretches agree with every distance); 0: none."""
    height = len(target)
    width = len(target[0]) if target else 0
    if height < 4 or width < PIECE:
        return 0
    where: dict[tuple[int, tuple[Cell, ...]], list[int]] = {}
    for y, row in enumerate(shown):
        for x in range(0, width - PIECE + 1, PIECE):
            piece = tuple(row[x:x + PIECE])
            if piece.count(piece[0]) != PIECE:
                where.setdefault((x, piece), []).append(y)
    votes: dict[int, int] = {}
    for y, row in enumerate(target):
        for x in range(0, width - PIECE + 1, PIECE):
            rows = where.get((x, tuple(row[x:x + PIECE])))
            if rows:
                for source in rows:
                    if source > y:
                        votes[source - y] = votes.get(source - y, 0) + 1
    if not votes:
        return 0
    distance, count = max(votes.items(), key=lambda item: (item[1], -item[0]))
    return distance if count >= MIN_VOTES else 0


def scroll_band(shown: list[Row], target: list[Row], k: int) -> tuple[int, int] | None:
    """The rows `[top, bottom]` to scroll up by `k` that save the most cells, or None when
    scrolling saves less than SCROLL_GAIN."""
    height = len(target)
    blank = [BLANK] * len(target[0])
    stay = [differing(shown[y], target[y]) for y in range(height)]
    gain = [stay[y] - differing(shown[y + k], target[y]) for y in range(height - k)]
    best, best_at, run, run_at = 0, (0, -1), 0, 0
    for y, g in enumerate(gain):  # the best run of moved lines (Kadane)
        if run <= 0:
            run, run_at = g, y
        else:
            run += g
        if run > best:
            best, best_at = run, (run_at, y)
    top, last = best_at
    if last < top:
        return None
    bottom = last + k
    if bottom >= height:
        return None
    entering = sum(stay[y] - differing(blank, target[y]) for y in range(last + 1, bottom + 1))
    if best + entering < SCROLL_GAIN:
        return None
    return top, bottom


def scroll(out: FrameText, shown: list[Row], top: int, bottom: int, k: int) -> None:
    """Scroll rows `[top, bottom]` up by `k` on the terminal and in `shown`."""
    out.reset_pen()  # lines scrolled in take the pen's background: the default one
    out.parts.append(f"\x1b[{top + 1};{bottom + 1}r\x1b[{bottom + 1};1H" + "\x1bD" * k + "\x1b[r")
    out.x = out.y = -1  # setting the region homes the cursor
    width = len(shown[0])
    shown[top:bottom + 1] = shown[top + k:bottom + 1] + [[BLANK] * width for _ in range(k)]


def frame(shown: list[Row] | None, target: list[Row], cursor: tuple[int, int] | None = None,
          budget: int | None = None) -> tuple[str, list[Row], bool]:
    """The bytes that turn `shown` (None: not known, everything is written) into `target`,
    what the terminal shows after them, and whether that is all of `target`.

    With a `budget` (characters) a frame stops once it has spent it: the cursor's line
    first (what the user types shows first), then from the bottom up (where a chat's newest
    lines are); the lines left out stay as they were, to come in the next frame."""
    out = FrameText()
    if shown is None or len(shown) != len(target) or (shown and len(shown[0]) != len(target[0])):
        for y, row in enumerate(target):
            out.move(0, y)
            out.cells(row)
        shown = [row[:] for row in target]
        complete = True
    else:
        shown = [row[:] for row in shown]
        k = scroll_distance(shown, target)
        band = scroll_band(shown, target, k) if k else None
        if band is not None:
            scroll(out, shown, band[0], band[1], k)
        rows = [y for y in range(len(target) - 1, -1, -1) if shown[y] != target[y]]
        if cursor is not None and cursor[1] in rows:
            rows.remove(cursor[1])
            rows.insert(0, cursor[1])
        complete = True
        spent, counted = 0, 0
        for count, y in enumerate(rows):
            if budget is not None and count:
                spent += sum(len(part) for part in out.parts[counted:])
                counted = len(out.parts)
                if spent > budget:
                    complete = False
                    break
            row = target[y]
            for start, end in changed_runs(shown[y], row):
                out.move(start, y)
                out.cells(row[start:end])
            shown[y] = row[:]
    if out.parts:
        out.reset_pen()
        if cursor is not None:
            out.move(*cursor)
    return out.text(), shown, complete

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
from operator import ne
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


# SGR attribute codes as Rich writes them (Textual's SGR_STYLES), each with the code that
# turns it off and what else that code turns off
OFF_CODE = {"1": "22", "2": "22", "3": "23", "4": "24", "21": "24", "5": "25", "6": "25",
            "7": "27", "8": "28", "9": "29", "51": "54", "52": "54", "53": "55"}
TURNS_OFF = {"22": ("1", "2"), "23": ("3",), "24": ("4", "21"), "25": ("5", "6"), "27": ("7",),
             "28": ("8",), "29": ("9",), "54": ("51", "52"), "55": ("53",)}
DEFAULT_COLOR = ("39", "49", "59")  # foreground, background, underline
UNSEEN_ON_BLANK = frozenset(("1", "2", "3"))  # bold, dim, italic: a blank looks the same
ECH_MIN = 8  # blanks erased with ECH (`CSI n X`) rather than written as spaces


class Pen:
    """SGR parameters taken apart: attribute codes and colors (foreground, background,
    underline), so that a change of style writes only what changed."""

    __slots__ = ("attrs", "colors", "seen_on_blank")

    def __init__(self, attrs: tuple[str, ...], colors: tuple[str, str, str]) -> None:
        self.attrs = attrs
        self.colors = colors
        # what shows on a blank cell beyond its background (reverse shows the foreground)
        self.seen_on_blank = any(code not in UNSEEN_ON_BLANK for code in attrs)


_pens: dict[str, Pen | None] = {}


def pen(sgr: str) -> Pen | None:
    """The `Pen` of SGR parameters; None: parameters this does not take apart (a change to
    them is written whole, after a reset)."""
    got = _pens.get(sgr, False)
    if got is not False:
        return got  # type: ignore[return-value]
    attrs: list[str] = []
    colors = ["", "", ""]
    codes = sgr.split(";") if sgr else []
    parsed: Pen | None = None
    i = 0
    try:
        while i < len(codes):
            code = codes[i]
            if code in OFF_CODE:
                attrs.append(code)
                i += 1
                continue
            number = int(code)
            slot = 0 if 30 <= number <= 39 or 90 <= number <= 97 else \
                1 if 40 <= number <= 49 or 100 <= number <= 107 else \
                2 if number in (58, 59) else -1
            if slot < 0:
                raise ValueError(code)
            if number in (38, 48, 58):
                size = {"5": 3, "2": 5}[codes[i + 1]]
                colors[slot] = ";".join(codes[i:i + size])
                i += size
            else:
                colors[slot] = "" if number in (39, 49, 59) else code
                i += 1
        parsed = Pen(tuple(attrs), (colors[0], colors[1], colors[2]))
    except (ValueError, KeyError, IndexError):
        parsed = None
    if len(_pens) > 4096:
        _pens.clear()
    _pens[sgr] = parsed
    return parsed


def sgr_change(old: str | None, new: str) -> str:
    """The SGR parameters that turn the pen `old` (None: not known) into `new`: only what
    differs, or a reset and all of `new` where that is shorter."""
    whole = f"0;{new}" if new else "0"
    was, will = (pen(old) if old is not None else None), pen(new)
    if was is None or will is None:
        return whole
    codes: list[str] = []
    off: set[str] = set()
    for code in was.attrs:
        if code not in will.attrs and OFF_CODE[code] not in codes:
            codes.append(OFF_CODE[code])
            off.update(TURNS_OFF[OFF_CODE[code]])
    codes += [code for code in will.attrs if code not in was.attrs or code in off]
    for default, a, b in zip(DEFAULT_COLOR, was.colors, will.colors):
        if a != b:
            codes.append(b or default)
    delta = ";".join(codes)
    return delta if len(delta) < len(whole) else whole


_blank_bg: dict[str, str | None] = {}


def blank_background(cell: Cell) -> str | None:
    """For a blank cell that shows nothing but its background (a space, no link, no
    underline, reverse...), the SGR of that background ("": the default one); else None."""
    if cell[0] != " " or cell[2]:
        return None
    sgr = cell[1]
    got = _blank_bg.get(sgr, False)
    if got is False:
        parsed = pen(sgr)
        got = None if parsed is None or parsed.seen_on_blank else parsed.colors[1]
        if len(_blank_bg) > 4096:
            _blank_bg.clear()
        _blank_bg[sgr] = got
    return got  # type: ignore[return-value]


_settled: dict[tuple[str, str], Cell] = {}


def settled_blank(sgr: str, link: str) -> Cell:
    """A blank cell of this style: just its background where nothing else of the style
    shows on a blank (its foreground, bold, italic). It looks the same, and two blanks
    that look the same are then the same cell: a change of foreground under a space is
    not a change to write."""
    got = _settled.get((sgr, link))
    if got is None:
        cell = (" ", sgr, link)
        background = blank_background(cell)
        got = cell if background is None else (" ", background, "")
        if len(_settled) > 4096:
            _settled.clear()
        _settled[(sgr, link)] = got
    return got


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
    return sum(map(ne, a, b))


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


Piece = tuple[int, int, int, bool]  # (line, start, end, erased rather than written)


def pieces_of(row: Row, start: int, end: int, y: int, erase_colored: bool = True) -> list[Piece]:
    """Cells `[start, end)` of line `y` in pieces: stretches of one blank that shows only its
    background (to erase: on a colored background only where `erase_colored`), and written
    stretches cut where the pen changes."""
    pieces: list[Piece] = []
    x = start
    piece_at = start
    pen_of: tuple[str, str] | None = None  # the pen the written piece holds
    while x < end:
        cell = row[x]
        background = blank_background(cell) if cell[0] == " " else None
        if background is not None:
            same = x + 1
            while same < end and row[same] == cell:
                same += 1
            if same - x >= ECH_MIN and (erase_colored or not background):
                if x > piece_at:
                    pieces.append((y, piece_at, x, False))
                pieces.append((y, x, same, True))
                x = piece_at = same
                pen_of = None
                continue
            held = pen(pen_of[0]) if pen_of is not None and not pen_of[1] else None
            if held is None or held.colors[1] != background or held.seen_on_blank:
                if x > piece_at:
                    pieces.append((y, piece_at, x, False))
                piece_at = x
                pen_of = ("", background)
            x = same
            continue
        if cell[0] != WIDE_TAIL and (cell[1], cell[2]) != pen_of:
            if x > piece_at:
                pieces.append((y, piece_at, x, False))
            piece_at = x
            pen_of = (cell[1], cell[2])
        x += 1
    if end > piece_at:
        pieces.append((y, piece_at, end, False))
    return pieces


def write_pieces_by_pen(out: FrameText, target: list[Row], pieces: list[Piece]) -> None:
    """Write `pieces`, each next one either the next in order or the first not written yet
    that takes the pen there is, whichever costs less: a pen is taken up once for many
    pieces (the same border and scrollbar on every line a scroll brought in) rather than
    once a line."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, (y, start, _, erase) in enumerate(pieces):
        cell = target[y][start]
        background = blank_background(cell)
        key = ("", background) if background is not None else (cell[1], cell[2])
        groups.setdefault(key, []).append(index)
    done = [False] * len(pieces)
    heads = {key: 0 for key in groups}
    following = 0
    for _ in range(len(pieces)):
        while done[following]:
            following += 1
        best = following
        y, start, _, _ = pieces[best]
        best_cost = len(out.move_text(start, y)) + out.pen_cost(target[y][start])
        now = pen(out.sgr) if out.sgr is not None else None
        keys = [(out.sgr or "", out.link or "")]
        if now is not None and not now.seen_on_blank and not out.link:
            keys.append(("", now.colors[1]))
        for key in keys:
            group = groups.get(key)
            if not group:
                continue
            at = heads[key]
            while at < len(group) and done[group[at]]:
                at += 1
            heads[key] = at
            if at < len(group) and group[at] != best:
                y, start, _, _ = pieces[group[at]]
                cost = len(out.move_text(start, y)) + out.pen_cost(target[y][start])
                if cost < best_cost:
                    best, best_cost = group[at], cost
        done[best] = True
        out.piece(target[pieces[best][0]], pieces[best])


def frame(shown: list[Row] | None, target: list[Row], cursor: tuple[int, int] | None = None,
          budget: int | None = None, erase_colored: bool = True) -> tuple[str, list[Row], bool]:
    """The bytes that turn `shown` (None: not known, everything is written) into `target`,
    what the terminal shows after them, and whether that is all of `target`.

    With a `budget` (characters) a frame stops once it has spent it: the cursor's line
    first (what the user types shows first), then from the bottom up (where a chat's newest
    lines are); the lines left out stay as they were, to come in the next frame.

    Long stretches of blanks are erased (ECH), which fills them with the pen's background
    on nearly every terminal (xterm, VTE, kitty, iTerm2, tmux); `erase_colored` False: only
    blanks on the default background are (GNU screen erases with the default one unless
    told `defbce on`)."""
    out = FrameText(len(target[0]) if target else 0)
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
        plan = [(y, [piece for run_start, run_end in changed_runs(shown[y], target[y])
                     for piece in pieces_of(target[y], run_start, run_end, y, erase_colored)])
                for y in rows]
        pieces = sorted(piece for _, row_pieces in plan for piece in row_pieces)
        by_pen = out.fork()
        write_pieces_by_pen(by_pen, target, pieces)
        complete = True
        if budget is None or by_pen.size() <= budget:
            out = by_pen
            for y in rows:
                shown[y] = target[y][:]
        else:  # the lines, in the order above, that the budget takes
            start = out.fork()
            taken: list[Piece] = []
            for count, (y, row_pieces) in enumerate(plan):
                if count and out.size() > budget:
                    complete = False
                    break
                for piece in row_pieces:
                    out.piece(target[y], piece)
                taken += row_pieces
                shown[y] = target[y][:]
            write_pieces_by_pen(start, target, sorted(taken))
            if start.size() < out.size():
                out = start
    if out.parts:
        out.reset_pen()
        if cursor is not None:
            out.move(*cursor)
    return out.text(), shown, complete

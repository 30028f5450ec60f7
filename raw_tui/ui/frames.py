"""Frames as cells: what the terminal shows, what it should show, and the bytes between.

Textual writes every region a widget repaints, whole, and every frame it draws. Over a slow
link that is most of the screen per streamed word (the chat moves up a line: every line of it
is written again). Here the screen is kept as a grid of cells twice: `target`, what Textual
last drew, and `shown`, what the terminal was last sent. A frame is the difference: the
terminal's own scrolling where lines moved (a scroll region and index), then only the cells
that differ, each style change written once. The grids are exact: a frame written from them
leaves the terminal with the same cells a full repaint would (tests/ui/test_frames.py checks
that through a terminal emulator).

No Textual here: `raw_tui/ui/terminal_output.py` feeds Textual's updates in and writes the
frames out. The cells are raw_tui/ui/frame_cells.py's, the bytes are written by
raw_tui/ui/frame_text.py's `FrameText`, with pens from raw_tui/ui/frame_pen.py.
"""

from __future__ import annotations

from operator import ne

from .frame_cells import BLANK, WIDE_TAIL, Cell, Row
from .frame_pen import blank_background, pen
from .frame_text import FrameText, Piece

GAP = 4  # unchanged cells between two changed runs rewritten rather than a cursor move
SCROLL_GAIN = 24  # cells a scroll must save before it is used (its sequence costs ~20 bytes)
MIN_VOTES = 3  # line pieces that must agree on a scroll distance before it is tried
PIECE = 8  # columns per piece when looking for lines that moved
ECH_MIN = 8  # blanks erased with ECH (`CSI n X`) rather than written as spaces


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

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


def scroll_band(shown: list[Row], target: list[Row], k: int,
                fill: Cell = BLANK) -> tuple[int, int] | None:
    """The rows `[top, bottom]` to scroll up by `k` that save the most cells, or None when
    scrolling saves less than SCROLL_GAIN. The lines moved land in `[top, bottom - k]` and
    `k` lines filled with `fill` come in below them: the band ends where they cost least
    (a chat's new lines, not the status line under it)."""
    height = len(target)
    blank = [fill] * len(target[0])
    stay = [differing(shown[y], target[y]) for y in range(height)]
    gain = [stay[y] - differing(shown[y + k], target[y]) for y in range(height - k)]
    enter = [0]  # enter[y]: what writing lines [0, y) into blank ones saves, summed
    for y in range(height):
        enter.append(enter[-1] + stay[y] - differing(blank, target[y]))
    best, band = SCROLL_GAIN - 1, None
    run, run_at = 0, 0
    for last, g in enumerate(gain):  # the best run of moved lines ending here (Kadane)
        if run <= 0:
            run, run_at = g, last
        else:
            run += g
        total = run + enter[last + k + 1] - enter[last + 1]
        if run > 0 and total > best:
            best, band = total, (run_at, last + k)
    return band


def scroll_fill(target: list[Row], erase_colored: bool) -> Cell:
    """The blank the lines a scroll brings in are filled with. A terminal fills them with
    the pen's background, as it does an erase: the background most blanks of `target`
    have, so that they need not be written again (the default one where only default
    blanks are erased, `erase_colored` False)."""
    if not erase_colored:
        return BLANK
    counts: dict[str, int] = {}
    for row in target:
        for cell in row:
            background = blank_background(cell)
            if background is not None:
                counts[background] = counts.get(background, 0) + 1
    background = max(counts, key=counts.__getitem__) if counts else ""
    return (" ", background, "") if background else BLANK


def scroll(out: FrameText, shown: list[Row], top: int, bottom: int, k: int,
           fill: Cell = BLANK) -> None:
    """Scroll rows `[top, bottom]` up by `k` on the terminal and in `shown`, the lines
    brought in filled with `fill` (a blank: the pen's background)."""
    if fill == BLANK:
        out.reset_pen()
    else:
        out.blank_style(fill[1])
    out.parts.append(f"\x1b[{top + 1};{bottom + 1}r\x1b[{bottom + 1};1H" + "\x1bD" * k + "\x1b[r")
    out.x = out.y = -1  # setting the region homes the cursor
    width = len(shown[0])
    shown[top:bottom + 1] = shown[top + k:bottom + 1] + [[fill] * width for _ in range(k)]



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
    for index, (y, start, _, _) in enumerate(pieces):
        groups.setdefault(pen_key(target[y][start]), []).append(index)
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


def write_pens_in_turn(out: FrameText, target: list[Row], pieces: list[Piece]) -> None:
    """Write `pieces` one pen at a time, each pen's pieces top down, the next pen the one
    cheapest to change to from the pen there is."""
    groups: dict[tuple[str, str], list[Piece]] = {}
    for piece in pieces:
        groups.setdefault(pen_key(target[piece[0]][piece[1]]), []).append(piece)
    while groups:
        key = min(groups, key=lambda k: out.pen_cost(target[groups[k][0][0]][groups[k][0][1]]))
        for piece in groups.pop(key):
            out.piece(target[piece[0]], piece)


def pen_key(cell: Cell) -> tuple[str, str]:
    """What a cell is drawn with: its style and link, or for a blank only its background."""
    background = blank_background(cell)
    return ("", background) if background is not None else (cell[1], cell[2])


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
        fill = scroll_fill(target, erase_colored) if k else BLANK
        band = scroll_band(shown, target, k, fill) if k else None
        if band is not None:
            scroll(out, shown, band[0], band[1], k, fill)
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
        in_turn = out.fork()
        write_pens_in_turn(in_turn, target, pieces)
        if in_turn.size() < by_pen.size():
            by_pen = in_turn
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

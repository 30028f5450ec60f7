"""Frames (raw_tui/ui/frames.py): the bytes between what the terminal shows and what it
should show, read back by a terminal emulator (pyte), equal a full repaint — for random
screens, lines that moved (the terminal's own scrolling), two-cell characters, links and
styles. And they are small: a screen moved up a line costs its new line, not the screen."""

from __future__ import annotations

import random

from rich.segment import Segment

import pyte
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raw_tui.ui.frame_cells import BLANK, WIDE_TAIL, blank_grid
from raw_tui.ui.frames import frame
from tests.e2e.slow_link_kit import BceScreen, cells

STYLES = ["", "1", "38;2;200;10;10", "48;2;16;16;16", "1;3;48;2;0;0;255", "7",
          "4;38;2;1;120;212;48;2;16;16;16", "2;38;5;196", "9;31;44"]
LINKS = ["", "", "", "7;https://example.test/a"]
CHARS = "abc xyz─│▅é"
WIDE = "中文"


def emulate(*texts: str, size=(20, 8)) -> list[list[tuple]]:
    screen = BceScreen(*size)
    stream = pyte.Stream(screen)
    for text in texts:
        stream.feed(text)
    return cells(screen)


def random_row(rng: random.Random, width: int) -> list:
    row = []
    while len(row) < width:
        sgr, link = rng.choice(STYLES), rng.choice(LINKS)
        if rng.random() < 0.1:  # a stretch of blanks (erased, or written as the pen allows)
            row += [(" ", sgr, link if rng.random() < 0.2 else "")] * rng.randint(2, 14)
            row = row[:width]
        elif rng.random() < 0.1 and len(row) < width - 1:
            row += [(rng.choice(WIDE), sgr, link), (WIDE_TAIL, sgr, link)]
        else:
            row.append((rng.choice(CHARS), sgr, link))
    return row


def mutate(rng: random.Random, grid: list) -> list:
    width = len(grid[0])
    new = [row[:] for row in grid]
    kind = rng.random()
    if kind < 0.4:  # lines move up (a chat scrolls), new ones come in at the bottom
        k = rng.randint(1, 3)
        top = rng.randint(0, 2)
        new[top:len(new) - 1] = new[top + k:len(new) - 1] + \
            [random_row(rng, width) for _ in range(k)]
        new = new[:len(grid)]
        while len(new) < len(grid):
            new.insert(len(new) - 1, random_row(rng, width))
    for _ in range(rng.randint(0, 2)):  # a line that changed a little (a streamed word)
        y = rng.randrange(len(new))
        fresh = random_row(rng, width)
        x = rng.randrange(width)
        if x and fresh[x][0] == WIDE_TAIL or new[y][x - 1 if x else 0][0] != WIDE_TAIL and \
                x and new[y][x][0] == WIDE_TAIL:
            continue
        new[y] = new[y][:x] + fresh[x:]
    for _ in range(rng.randint(0, 6)):  # scattered changes (a scrollbar, a status line)
        y, x = rng.randrange(len(new)), rng.randrange(width)
        if new[y][x][0] != WIDE_TAIL and (x + 1 >= width or new[y][x + 1][0] != WIDE_TAIL):
            new[y][x] = (rng.choice(CHARS), rng.choice(STYLES), "")
    return new


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_frame_leaves_what_a_full_repaint_leaves(seed):
    rng = random.Random(seed)
    size = (20, 8)
    shown = [random_row(rng, size[0]) for _ in range(size[1])]
    first, known, _ = frame(None, shown)
    texts = [first]
    grid = shown
    for _ in range(4):
        grid = mutate(rng, grid)
        text, known, _ = frame(known, grid)
        texts.append(text)
    assert known == grid
    incremental = emulate(*texts, size=size)
    full = emulate(frame(None, grid)[0], size=size)
    assert incremental == full


def test_an_unchanged_screen_costs_nothing():
    grid = [[("x", "1", "")] * 10 for _ in range(5)]
    text, _, _ = frame(grid, [row[:] for row in grid])
    assert text == ""


def test_lines_that_moved_are_scrolled_not_written_again():
    rng = random.Random(7)
    width, height = 80, 24
    grid = [random_row(rng, width) for _ in range(height)]
    moved = grid[1:] + [[("n", "", "")] * width]
    moved[-1][-1] = ("▅", "1", "")  # and a scrollbar cell that changed on the way
    text, _, _ = frame(grid, moved)
    assert "\x1b[1;24r" in text and "\x1bD" in text, text[:80]
    assert len(text) < 80 * 3, len(text)  # the new line and a little, not the screen
    assert emulate(frame(None, grid)[0], text, size=(width, height)) == \
        emulate(frame(None, moved)[0], size=(width, height))


def test_a_band_of_a_screen_scrolls_while_the_rest_stays():
    rng = random.Random(3)
    width, height = 40, 12
    grid = [random_row(rng, width) for _ in range(height)]
    moved = [grid[0]] + grid[3:9] + [random_row(rng, width) for _ in range(2)] + grid[9:]
    moved = moved[:height]
    text, _, _ = frame(grid, moved)
    assert "\x1bD" in text
    assert emulate(frame(None, grid)[0], text, size=(width, height)) == \
        emulate(frame(None, moved)[0], size=(width, height))


def test_a_frame_over_its_budget_writes_the_cursor_line_first_and_the_rest_later():
    rng = random.Random(5)
    width, height = 40, 10
    old = [random_row(rng, width) for _ in range(height)]
    new = [random_row(rng, width) for _ in range(height)]
    first, shown, complete = frame(old, new, cursor=(0, 2), budget=100)
    assert not complete
    assert shown[2] == new[2] and shown != new  # the cursor's line came first
    texts = [first]
    while not complete:
        text, shown, complete = frame(shown, new, cursor=(0, 2), budget=100)
        texts.append(text)
    assert shown == new
    assert emulate(frame(None, old)[0], *texts, size=(width, height)) == \
        emulate(frame(None, new)[0], size=(width, height))


@pytest.mark.parametrize("change", ["size", "unknown"])
def test_a_new_size_or_an_unknown_screen_is_written_whole(change):
    grid = blank_grid(6, 3)
    grid[1][2] = ("q", "1", "")
    shown = None if change == "unknown" else blank_grid(5, 3)
    text, _, _ = frame(shown, grid)
    assert text.count("\x1b[") >= 3 and "q" in text
    assert emulate(text, size=(6, 3)) == emulate(frame(None, grid)[0], size=(6, 3))


def test_style_changes_are_written_once_per_run():
    row = [("a", "1", "")] * 10 + [("b", "", "")] * 10
    text, _, _ = frame(blank_grid(20, 1), [row])
    assert text.count("\x1b[0;1m") == 1
    assert BLANK == (" ", "", "")


def test_no_control_character_from_a_widget_reaches_the_terminal():
    """The backstop: whatever a widget makes of neutralised text (markdown decodes `%1B` in
    a link's text into ESC), a cell never carries a control or a bidi format character, and
    a link whose URL holds one is not written."""
    from rich.style import Style
    from textual.strip import Strip

    from raw_tui.ui.frame_cells import StyleCodes, strip_cells

    codes = StyleCodes(None)
    strip = Strip([Segment("a\x1b]52;c;eA==\x07b\x9b31m\u202ec", Style(bold=True)),
                   Segment("link", Style(link="http://x.test/\x1b]0;t\x07"))])
    cells = strip_cells([strip], codes)
    text, _, _ = frame(None, [cells])
    assert "\x1b]52" not in text and "\x9b" not in text and "\u202e" not in text
    assert "\x1b]0;" not in text and "\x07" not in text and "\x1b]8;" not in text
    assert "".join(cell[0] for cell in cells).startswith("a]52;c;eA==b31mc")


def test_a_terminal_that_stops_answering_is_not_waited_for_again():
    from raw_tui.ui import terminal_output as out_module
    from raw_tui.ui.terminal_output import TerminalOutput

    written: list[str] = []
    output = TerminalOutput(written.append, max_fps=0)  # no frame-rate wait

    def draw(char: str) -> None:
        def lay(target, codes):
            target[0][0] = (char, "", "")
        output.update(4, 1, lay, (0, 0), None, False)

    draw("a")
    assert output.answered() and output.answers  # the terminal answers
    draw("b")
    assert len(written) == 2
    output.asked_at -= out_module.ANSWER_TIMEOUT + 1  # ...then no more
    draw("c")
    draw("d")
    assert len(written) == 4 and not output.answers  # frames flow again, not one per 3 s


def test_a_report_nobody_asked_for_is_not_an_answer():
    from raw_tui.ui.terminal_output import TerminalOutput

    output = TerminalOutput(lambda text: None)
    assert output.answered() is False and output.answers is False


def test_a_style_change_writes_only_what_changed():
    row = [(c, "38;2;224;224;224;48;2;18;18;18", "") for c in "ab"] + \
        [(c, "1;38;2;224;224;224;48;2;18;18;18", "") for c in "cd"] + \
        [(c, "38;2;87;165;226;48;2;18;18;18", "") for c in "ef"]
    text, _, _ = frame(blank_grid(6, 1), [row])
    assert "ab\x1b[1mcd\x1b[22;38;2;87;165;226mef" in text, repr(text)
    assert text.count("48;2;18;18;18") == 1
    assert emulate(text, size=(6, 1)) == emulate(frame(None, [row])[0], size=(6, 1))


def test_turning_off_bold_keeps_dim():
    from raw_tui.ui.frame_pen import sgr_change

    assert sgr_change("1;2;31", "2;31") == "22;2"  # SGR 22 ends bold and dim both
    assert sgr_change("4;7", "") == "0"  # a reset where it is shorter
    assert sgr_change(None, "1") == "0;1"  # a pen not known: reset first
    assert sgr_change("38;2;1;2;3", "38;5;9;48;2;4;5;6") == "38;5;9;48;2;4;5;6"


def test_blanks_that_look_the_same_are_the_same_cell():
    """A space shows its background only: under another foreground (or bold) it is not a
    change to write. Under underline or reverse video it is."""
    from rich.style import Style
    from textual.strip import Strip

    from raw_tui.ui.frame_cells import StyleCodes, strip_cells

    codes = StyleCodes(None)
    plain = strip_cells([Strip([Segment("a  b", Style(color="#e0e0e0", bgcolor="#121212"))])],
                        codes)
    bold = strip_cells([Strip([Segment("a  b", Style(color="#e0e0e0", bold=True,
                                                     bgcolor="#121212"))])], codes)
    other = strip_cells([Strip([Segment("a", Style(color="#e0e0e0", bgcolor="#121212")),
                                Segment("  ", Style(color="#57a5e2", bold=True,
                                                    bgcolor="#121212")),
                                Segment("b", Style(color="#e0e0e0", bgcolor="#121212"))])],
                        codes)
    assert plain[1] == other[1] == bold[1] and frame([plain], [other])[0] == ""
    underlined = strip_cells([Strip([Segment("a", Style(color="#e0e0e0", bgcolor="#121212")),
                                     Segment("  ", Style(underline=True, bgcolor="#121212")),
                                     Segment("b", Style(color="#e0e0e0", bgcolor="#121212"))])],
                             codes)
    assert frame([plain], [underlined])[0] != ""


def test_a_long_blank_stretch_is_erased_not_written():
    old = [[(c, "38;2;224;224;224;48;2;18;18;18", "") for c in "x" * 50]]
    new = [[("y", "38;2;224;224;224;48;2;18;18;18", "")] + [(" ", "48;2;18;18;18", "")] * 49]
    text, _, _ = frame(old, new)
    assert "\x1b[49X" in text and text.count(" ") == 0, repr(text)
    assert emulate(frame(None, old)[0], text, size=(50, 1)) == \
        emulate(frame(None, new)[0], size=(50, 1))


def test_the_lines_a_scroll_brings_in_take_each_pen_once():
    """A chat beside a sidebar scrolls the sidebar's border along: every line that comes
    in needs its border cell again, and they are written under one pen, not one a line."""
    rng = random.Random(11)
    width, height, chat = 40, 12, 28
    border = ("▏", "38;2;0;69;120;48;2;18;18;18", "")
    side = (" ", "48;2;18;18;18", "")

    def line(text: str) -> list:
        cells = [(c, "38;2;224;224;224;48;2;18;18;18", "") for c in text.ljust(chat)[:chat]]
        return cells + [border] + [side] * (width - chat - 1)

    words = "the gate asks before a write lands and shows what changes".split()
    lines = [line(" ".join(rng.choice(words) for _ in range(4))) for _ in range(height + 4)]
    old, new = lines[:height], lines[4:height + 4]
    text, _, _ = frame(old, new)
    assert "\x1bD" in text and text.count("38;2;0;69;120") == 1, repr(text)
    assert emulate(frame(None, old)[0], text, size=(width, height)) == \
        emulate(frame(None, new)[0], size=(width, height))


def test_under_gnu_screen_only_default_blanks_are_erased(monkeypatch):
    """GNU screen erases with the default background (unless `defbce on`): under a screen*
    TERM, blanks on a colored background are written, not erased."""
    from raw_tui.ui.terminal_output import TerminalOutput

    old = [[("x", "", "")] * 40, [("x", "", "")] * 40]
    new = [[(" ", "48;2;18;18;18", "")] * 40, [(" ", "", "")] * 40]
    written = frame(old, new, erase_colored=False)[0]
    assert "\x1b[40X" in written and written.count(" ") == 40, repr(written)
    assert emulate(frame(None, old)[0], written, size=(40, 2)) == \
        emulate(frame(None, new)[0], size=(40, 2))
    monkeypatch.setenv("TERM", "screen-256color")
    assert TerminalOutput(lambda text: None).erase_colored is False
    monkeypatch.setenv("TERM", "xterm-256color")
    assert TerminalOutput(lambda text: None).erase_colored is True


async def test_a_quiet_screen_is_drawn_whole_again_and_a_stale_cell_is_written():
    """An update Textual lost (its compositor can drop the repaint of a scroll) leaves a cell
    stale; once the screen is quiet it is drawn whole again, and only that cell is written.
    A screen that is right costs no byte."""
    import asyncio

    from raw_tui.ui import terminal_output as out_module
    from raw_tui.ui.terminal_output import TerminalOutput

    written: list[str] = []
    output = TerminalOutput(written.append, max_fps=0)
    truth = {"text": "abcd"}

    def lay_text(text: str):
        def lay(target, codes):
            for x, char in enumerate(text):
                target[0][x] = (char, "", "")
        return lay

    settled: list[int] = []

    def settle() -> None:
        settled.append(1)
        output.update(4, 1, lay_text(truth["text"]), (0, 0), None, False, settling=True)

    output.settle = settle
    output.update(4, 1, lay_text("abcd"), (0, 0), None, False)
    truth["text"] = "abXd"  # what the screen is now; the update that carried it was lost
    await asyncio.sleep(out_module.SETTLE_AFTER + 0.2)
    assert settled == [1]  # once, not again and again while idle
    assert "X" in written[-1] and "a" not in written[-1], written
    sent = len(written)
    output.update(4, 1, lay_text("abXd"), (0, 0), None, False)  # nothing changes
    await asyncio.sleep(out_module.SETTLE_AFTER + 0.2)
    assert settled == [1, 1] and len(written) == sent  # a right screen: not a byte
    truth["text"] = "YbXd"  # a repaint Textual found nothing in (no update at all)
    output.touched()
    await asyncio.sleep(out_module.SETTLE_AFTER + 0.2)
    assert settled == [1, 1, 1] and "Y" in written[-1]


async def test_a_screen_that_never_goes_quiet_is_settled_all_the_same():
    """A spinner redraws every 0.25 s, under SETTLE_AFTER: the screen is drawn whole again
    at least every SETTLE_MAX."""
    import asyncio

    from raw_tui.ui import terminal_output as out_module
    from raw_tui.ui.terminal_output import TerminalOutput

    output = TerminalOutput(lambda text: None, max_fps=0)
    settled: list[float] = []
    output.settle = lambda: settled.append(1)

    def lay(target, codes):
        target[0][0] = ("x", "", "")

    steps = int((out_module.SETTLE_MAX + out_module.SETTLE_AFTER + 0.5) / 0.1)
    for _ in range(steps):
        output.update(4, 1, lay, (0, 0), None, False)
        await asyncio.sleep(0.1)
    assert settled, "never settled while the updates went on"

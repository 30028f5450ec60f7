"""Terminal output: frames that never queue behind a slow link.

Textual draws a frame whenever something changed (up to 60 a second) and hands each to a
writer thread that queues it. On a slow SSH link the queue and the pty's buffer fill, and the
screen — and the user's own typing — falls seconds behind. Here:

- Textual's updates are laid into a grid of what the screen should show (`frames.py`); a
  frame writes only the difference from what the terminal was last sent.
- After each frame the terminal is asked for its cursor position (`CSI 6n`). A terminal
  answers only once it has taken in everything before the question, so the answer says the
  frame has arrived, however many buffers lie between (a pty, sshd, TCP, tmux). Until it
  comes, no other frame is written: what changes meanwhile merges into the next frame.
- A terminal that never answers is never waited for: frames are written as Textual draws
  them (still only the difference), as before. One that stops answering is waited for at
  most ANSWER_TIMEOUT.
- At most `max_fps` frames a second (`ui.max_fps`, `RAW_TUI_FPS`).
- Once the screen has been quiet for SETTLE_AFTER, it is drawn whole once more into the grid
  (`settle`): a cell Textual's own updates left stale (its compositor can lose the repaint
  of a scroll) differs, and only it is written. A settled screen is exactly a full repaint;
  an unchanged one costs no byte.
- Once answers say how fast the link is, a frame takes at most what the link carries in
  FRAME_TIME: the cursor's line first, so what the user types shows first; the lines left
  out come with the next frame. A key typed mid-stream waits for one short frame at most.

The Linux driver (`raw_tui/ui/driver.py`) owns one `TerminalOutput`; the app's `_display`
hands it Textual's updates (`raw_tui/ui/textual_private.py`). The web driver of `serve` and the
headless driver of tests keep Textual's own path.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Callable

from .frame_cells import Row, StyleCodes, blank_grid, put, strip_cells
from .frames import frame

ASK_POSITION = "\x1b[6n"
SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"
ANSWER_TIMEOUT = 3.0  # seconds a frame waits for the last one's answer before it goes anyway
DEFAULT_FPS = 60.0
FRAME_TIME = 0.06  # seconds of the link one frame may take once its speed is known
MIN_BUDGET = 1024  # characters a frame may always take
SETTLE_AFTER = 0.3  # seconds of quiet after which the whole screen is drawn again
SETTLE_MAX = 2.0  # seconds of updates that never go quiet (a spinner) before it is anyway


class TerminalOutput:
    def __init__(self, write: Callable[[str], None], *, max_fps: float = DEFAULT_FPS) -> None:
        self.write = write  # to the terminal, in order (the driver's writer thread)
        self.interval = 1.0 / max_fps if max_fps > 0 else 0.0
        self.codes: StyleCodes | None = None
        self.target: list[Row] | None = None  # what the screen should show
        self.shown: list[Row] | None = None  # what the terminal was sent; None: not known
        self.cursor: tuple[int, int] | None = None
        self.sync = False  # the terminal takes synchronized output (mode 2026)
        self.pending = False  # target differs from what was sent
        self.unanswered = 0  # frames whose position question is not answered yet
        self.answers = False  # the terminal has answered one: frames wait for answers
        self.asked_at = 0.0
        self.written_at = -1e9
        self.timer: asyncio.TimerHandle | None = None
        self.settle: Callable[[], None] | None = None  # draws the whole screen again
        self.settle_timer: asyncio.TimerHandle | None = None
        self.unsettled_since: float | None = None  # the first update since the last settle
        self.frames = 0
        self.bytes = 0
        self.in_flight = 0  # bytes of the frame whose answer is awaited
        self.rate: float | None = None  # bytes a second the link has carried (measured)
        # GNU screen erases with the default background (unless `defbce on`); its TERM is
        # screen*, which an older tmux also sets: there, only default blanks are erased
        self.erase_colored = not os.environ.get("TERM", "").startswith("screen")

    # -- from Textual (the event loop) --------------------------------------------------
    def update(self, width: int, height: int, lay: Callable[[list[Row], StyleCodes], None],
               cursor: tuple[int, int], color_system: Any, sync: bool,
               settling: bool = False) -> None:
        """Lay an update into the target grid (`lay(grid, codes)`) and write a frame when
        the terminal is ready for one; the whole screen is drawn again once it is quiet
        (unless this is that drawing, `settling`)."""
        if self.codes is None or self.codes.color_system != (color_system or
                                                             self.codes.color_system):
            self.codes = StyleCodes(color_system)
            self.shown = None
        if self.target is None or len(self.target) != height or \
                (height and len(self.target[0]) != width):
            self.target = blank_grid(width, height)
            self.shown = None  # a resized terminal keeps nothing we can count on
        lay(self.target, self.codes)
        self.cursor = cursor
        self.sync = sync
        self.pending = True
        self.flush()
        if not settling:
            self._settle_later()

    def touched(self) -> None:
        """Textual refreshed the screen, with an update or with none (it found nothing
        changed): the whole screen is drawn again once it is quiet."""
        self._settle_later()

    def _settle_later(self) -> None:
        if self.settle is None:
            return
        now = time.monotonic()
        if self.unsettled_since is None:
            self.unsettled_since = now
        elif self.settle_timer is not None and now - self.unsettled_since > SETTLE_MAX:
            return  # never quiet: the timer set before stands
        if self.settle_timer is not None:
            self.settle_timer.cancel()
        try:
            self.settle_timer = asyncio.get_running_loop().call_later(SETTLE_AFTER,
                                                                      self._settle)
        except RuntimeError:  # no loop (closing)
            self.settle_timer = None

    def _settle(self) -> None:
        self.settle_timer = None
        self.unsettled_since = None
        if self.settle is not None:
            self.settle()

    def knows(self, width: int, height: int) -> bool:
        """Whether the target grid holds a whole screen of this size."""
        target = self.target
        return target is not None and len(target) == height and \
            (not height or len(target[0]) == width)

    def invalidate(self) -> None:
        """The terminal's contents are not known any more (a resume after Ctrl+Z, output
        written past us): the next frame writes every cell."""
        self.shown = None
        self.pending = self.target is not None

    # -- from the terminal (the driver's input thread hands it to the loop) ------------
    def answered(self) -> bool:
        """A cursor position report came: the answer to the oldest frame not yet answered.
        False when no frame awaits one (a key that reads like a report: Shift+F3)."""
        if not self.unanswered:
            return False
        self.unanswered -= 1
        if not self.unanswered and self.in_flight >= MIN_BUDGET:  # how fast the link is
            took = max(time.monotonic() - self.asked_at, 1e-3)
            sample = self.in_flight / took
            self.rate = sample if self.rate is None else 0.7 * self.rate + 0.3 * sample
        self.answers = True
        if self.pending and not self.unanswered:
            self.flush()
        return True

    # -- writing ------------------------------------------------------------------------
    def flush(self) -> None:
        """Write a frame now if the terminal has taken the last one and the frame rate
        allows, else when it does."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.pending or self.target is None:
            return
        now = time.monotonic()
        if self.answers and self.unanswered:
            waited = now - self.asked_at
            if waited < ANSWER_TIMEOUT:
                self._later(ANSWER_TIMEOUT - waited)  # a lost answer must not stall us
                return
            # no answer: a terminal that stopped answering is not waited for again until
            # it answers again
            self.unanswered = 0
            self.answers = False
        wait = self.written_at + self.interval - now
        if wait > 0:
            self._later(wait)
            return
        text, self.shown, complete = frame(self.shown, self.target, self.cursor, self.budget(),
                                           self.erase_colored)
        self.pending = not complete
        if not text:
            return
        if self.sync:
            text = SYNC_START + text + SYNC_END
        text += ASK_POSITION
        self.unanswered = min(self.unanswered + 1, 1000)
        self.asked_at = self.written_at = now
        size = len(text.encode("utf-8", "surrogateescape"))
        self.in_flight = size
        self.frames += 1
        self.bytes += size
        self.write(text)

    def budget(self) -> int | None:
        """The characters a frame may take: what the link carries in FRAME_TIME, once an
        answer has said how fast it is (None: as much as needed)."""
        if self.rate is None:
            return None
        return max(MIN_BUDGET, int(self.rate * FRAME_TIME))

    def _later(self, delay: float) -> None:
        try:
            self.timer = asyncio.get_running_loop().call_later(delay, self.flush)
        except RuntimeError:  # no loop (closing): nothing more to draw
            self.timer = None


def lay_layout(update: Any) -> Callable[[list[Row], StyleCodes], None]:
    """A `LayoutUpdate` (a region's lines, each a list of strips side by side)."""
    def lay(grid: list[Row], codes: StyleCodes) -> None:
        x, y = update.region.x, update.region.y
        for offset, strips in enumerate(update.strips):
            put(grid, x, y + offset, strip_cells(strips, codes))
    return lay


def lay_chops(update: Any) -> Callable[[list[Row], StyleCodes], None]:
    """A `ChopsUpdate` (pieces of lines: the spans that changed), laid as Textual writes
    them: each piece from its own start, cut at the span's end."""
    def lay(grid: list[Row], codes: StyleCodes) -> None:
        chops, chop_ends = update.chops, update.chop_ends
        for y, x1, x2 in update.spans:
            for end, (x, strip) in zip(chop_ends[y], chops[y].items()):
                if strip is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):
                    strip = strip.crop(0, min(end, x2) - x)
                put(grid, x, y, strip_cells([strip], codes))
    return lay

"""Textual's Linux driver, safe on a terminal that hung up (an SSH drop, a closed window), and
writing frames through a `TerminalOutput` (raw_tui/ui/terminal_output.py): only what changed,
never queued behind a slow link.

On a hang-up the kernel sends SIGHUP and SIGCONT. Textual's SIGCONT handler resumes
"application mode" (it takes SIGCONT for the end of a Ctrl+Z suspension): on the dead
terminal that starts a second output thread, which dies on its first write (EIO), and the
app's next 30 writes fill its queue; the app then blocks for ever, at the latest at exit
(seen as a client stuck in a futex). Here a SIGCONT resumes only a live terminal, and once
the output thread is dead writes are dropped instead of queued.

It reads keys with ui/keys.py's parser (Alt+Enter and Shift+Enter in every form
terminals send them); it asks for xterm's modifyOtherKeys while it runs, and
reads first what was typed before the app took the terminal (ui/typeahead.py).
"""

from __future__ import annotations

import os

from textual import events
from textual.drivers import linux_driver
from textual.drivers.linux_driver import LinuxDriver

from .keys import MODIFY_OTHER_KEYS_OFF, MODIFY_OTHER_KEYS_ON, KeyParser, typed_ahead_events
from .terminal_output import DEFAULT_FPS, TerminalOutput
from .textual_private import ResumeGate, call_on_app_loop, use_key_parser, writer_thread
from .typeahead import take_typed_ahead

use_key_parser(linux_driver, KeyParser)

FPS_ENV = "RAW_TUI_FPS"  # frames a second at most (also `ui.max_fps`)
FRAMES_ENV = "RAW_TUI_FRAMES"  # `textual`: Textual's own output path, for comparison


def env_fps() -> float | None:
    try:
        value = float(os.environ.get(FPS_ENV, ""))
    except ValueError:
        return None
    return value if value > 0 else None


class HangupSafeDriver(ResumeGate, LinuxDriver):
    output: TerminalOutput | None = None

    def start_application_mode(self) -> None:
        early = take_typed_ahead()
        if early:  # before the input thread starts: these keys come first
            for event in typed_ahead_events(early):
                self.process_message(event)
        super().start_application_mode()  # also on a resume after Ctrl+Z: all drawn again
        if writer_thread(self) is not None:
            self.write(MODIFY_OTHER_KEYS_ON)
            self.flush()
        if os.environ.get(FRAMES_ENV) == "textual":
            self.output = None
        else:
            self.output = TerminalOutput(self.write, max_fps=env_fps() or DEFAULT_FPS)

    def stop_application_mode(self) -> None:
        if writer_thread(self) is not None:
            self.write(MODIFY_OTHER_KEYS_OFF)
        super().stop_application_mode()

    def process_message(self, message) -> None:
        """A cursor position report answers the question asked after a frame: the terminal
        has taken that frame in."""
        output = self.output
        if output is not None and isinstance(message, events.CursorPosition) and \
                output.unanswered:  # otherwise a key that reads like one (Shift+F3)
            call_on_app_loop(self, output.answered)
            return
        super().process_message(message)

    def set_max_fps(self, fps: float) -> None:
        """`ui.max_fps` (RAW_TUI_FPS wins when set)."""
        if self.output is not None and env_fps() is None and fps > 0:
            self.output.interval = 1.0 / fps

    def may_resume(self) -> bool:
        """SIGCONT resumes application mode only on a live terminal (a hung-up terminal
        answers EIO: not a tty any more)."""
        return os.isatty(self.fileno)

    def write(self, data: str) -> None:
        writer = writer_thread(self)
        if writer is not None and writer.ident is not None and not writer.is_alive():
            return  # the terminal is gone: nobody reads this
        super().write(data)

    def close(self) -> None:
        writer = writer_thread(self)
        if writer is not None and writer.ident is not None and not writer.is_alive():
            return
        super().close()

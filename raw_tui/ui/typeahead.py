"""Keys typed while the app starts (over SSH, or `tmux send-keys` right after launch) wait in
the terminal's line buffer in cooked mode, where the kernel turns Enter (CR) into a newline
(NL) — which the composer reads as Ctrl+J, "insert a newline", so the typed-ahead message is
not sent. Until the app's driver takes the terminal over, keep CR as CR and stop echoing; the
caller's terminal settings are put back when the app exits."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def keep_typeahead() -> Iterator[None]:
    try:
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except Exception:  # not a terminal (a pipe, textual-serve, Windows)
        yield
        return
    changed = list(saved)
    changed[0] &= ~termios.ICRNL  # iflag: Enter stays CR
    changed[3] &= ~termios.ECHO  # lflag: typed-ahead keys are not echoed under the app
    try:
        termios.tcsetattr(fd, termios.TCSANOW, changed)
    except termios.error:
        yield
        return
    try:
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        except termios.error:
            pass

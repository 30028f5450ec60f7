"""Keys typed while the app starts (over SSH, or `tmux send-keys` right after launch) wait in
the terminal's line buffer in cooked mode, where the kernel turns Enter (CR) into a newline
(NL) — which the composer reads as Ctrl+J, "insert a newline", so the typed-ahead message is
not sent. Until the app's driver takes the terminal over, keep CR as CR and stop echoing; the
caller's terminal settings are put back when the app exits.

Lines typed before that (the process was still starting: `tmux send-keys` at launch, a fast
typist over SSH) were already read by the kernel with CR turned into NL. Those complete lines
are taken off the terminal here, NL put back to the CR it was, and kept in `typed_ahead` for
the driver to read first (ui/driver.py); the unfinished line after them stays in the
terminal and is read next, in order."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

typed_ahead = bytearray()  # complete lines typed before keep_typeahead(), CR restored


def take_typed_ahead() -> bytes:
    """What was typed before the app's terminal settings applied (once)."""
    data = bytes(typed_ahead)
    typed_ahead.clear()
    return data


def _drain_lines(fd: int) -> bytes:
    """The complete lines waiting in a terminal in canonical mode (FIONREAD counts only
    those), read off it."""
    import fcntl
    import os
    import struct
    import termios

    try:
        waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except OSError:
        return b""
    out = bytearray()
    while len(out) < waiting:  # canonical mode: one line per read
        try:
            chunk = os.read(fd, waiting - len(out))
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return bytes(out)


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
    if saved[0] & termios.ICRNL and saved[3] & termios.ICANON:
        typed_ahead.extend(_drain_lines(fd).replace(b"\n", b"\r"))
    try:
        yield
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        except termios.error:
            pass

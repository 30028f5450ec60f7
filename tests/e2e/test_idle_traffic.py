"""An idle raw-tui sends nothing to its terminal: no blinking cursor, no clock, no spinner.
Over SSH every byte of a repaint is paid for, so the installed command runs on a real pty,
draws its first screen, and then the bytes it writes while nobody touches it are counted."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time

import pytest

from tests.e2e.test_tmux_demo import RAW_TUI, isolated_env, place

__all__ = ["place"]

IDLE_SECONDS = 20.0
SETTLE_SECONDS = 3.0  # after the first frame: the last repaints of start-up


def _read_for(fd: int, seconds: float) -> bytes:
    out = bytearray()
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return bytes(out)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_an_idle_ui_writes_no_bytes(place, size):
    assert_idle(place, size)


def test_the_first_runs_welcome_writes_no_bytes_while_idle(place):
    assert_idle(place, (80, 24), welcome=True)


def assert_idle(place, size, *, welcome: bool = False) -> None:
    columns, rows = size
    main_fd, child_fd = pty.openpty()
    fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = isolated_env(place, TERM="xterm-256color", COLORTERM="truecolor")
    if welcome:
        env.pop("RAW_TUI_WELCOME", None)
    shown = b"Press any key" if welcome else b"idle"
    proc = subprocess.Popen([str(RAW_TUI)],
                            cwd=place / "w", env=env, stdin=child_fd, stdout=child_fd,
                            stderr=child_fd, start_new_session=True, close_fds=True)
    os.close(child_fd)
    try:
        seen = bytearray()
        deadline = time.monotonic() + 60
        while shown not in seen:  # the status line of the first frame (or the welcome)
            assert time.monotonic() < deadline, f"no first frame: {bytes(seen[-500:])!r}"
            seen += _read_for(main_fd, 0.5)
        _read_for(main_fd, SETTLE_SECONDS)
        idle = _read_for(main_fd, IDLE_SECONDS)
        per_minute = len(idle) * 60 / IDLE_SECONDS
        print(f"\nidle traffic at {columns}x{rows}: {len(idle)} bytes in {IDLE_SECONDS:.0f} s "
              f"({per_minute:.0f} bytes per minute)")
        assert idle == b"", f"{len(idle)} bytes while idle: {idle[:300]!r}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(main_fd)


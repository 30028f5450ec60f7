"""An idle raw-tui sends nothing to its terminal: no blinking cursor, no clock, no spinner.
Over SSH every byte of a repaint is paid for, so the installed command runs on a real pty,
draws its first screen, and then the bytes it writes while nobody touches it are counted."""

from __future__ import annotations

import pytest

from tests.e2e.terminal_kit import RAW_TUI, Pty, isolated_env, place

__all__ = ["place"]

IDLE_SECONDS = 20.0
SETTLE_SECONDS = 3.0  # after the first frame: the last repaints of start-up


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_an_idle_ui_writes_no_bytes(place, size):
    assert_idle(place, size)


def test_the_first_runs_welcome_writes_no_bytes_while_idle(place):
    assert_idle(place, (80, 24), welcome=True)


def assert_idle(place, size, *, welcome: bool = False) -> None:
    columns, rows = size
    env = isolated_env(place, TERM="xterm-256color", COLORTERM="truecolor")
    if welcome:
        env.pop("RAW_TUI_WELCOME", None)
    shown = b"Welcome to raw-tui" if welcome else b"idle"
    with Pty([str(RAW_TUI)], cwd=place / "w", env=env, size=size) as terminal:
        # the status line of the first frame (or the welcome)
        terminal.read_until(shown, "no first frame")
        terminal.read_for(SETTLE_SECONDS)
        idle = terminal.read_for(IDLE_SECONDS)
        per_minute = len(idle) * 60 / IDLE_SECONDS
        print(f"\nidle traffic at {columns}x{rows}: {len(idle)} bytes in {IDLE_SECONDS:.0f} s "
              f"({per_minute:.0f} bytes per minute)")
        assert idle == b"", f"{len(idle)} bytes while idle: {idle[:300]!r}"

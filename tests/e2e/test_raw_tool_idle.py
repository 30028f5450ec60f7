"""A Raw tool's panel with an indeterminate progress bar keeps an idle raw-tui silent
(issue 18, item 3; docs/decisions.md): the installed command, on a real pty,
runs the fixture tool (tests/fixtures/raw_tools/board, copied unchanged into `tools/`),
draws its panel, and then writes no byte while nobody touches it."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.e2e.terminal_kit import RAW_TUI, Pty, isolated_env, place
from tests.config_kit import write_config, write_script

__all__ = ["place"]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "raw_tools" / "board"
IDLE_SECONDS = 15.0
SETTLE_SECONDS = 3.0


def test_an_indeterminate_bar_does_not_animate(place):
    cfg = place / "cfg"
    shutil.copytree(FIXTURE, cfg / "tools" / "board")
    write_script(cfg, {"tool_calls": [{"id": "c1", "name": "board", "arguments": {"step": 1}}]},
                 {"text": "Board drawn."})
    write_config(cfg, {"tools": {"use": ["agent/board"]}})
    env = isolated_env(place, TERM="xterm-256color", COLORTERM="truecolor")
    argv = [str(RAW_TUI), "--config", str(cfg / "raw.json")]
    with Pty(argv, cwd=place / "w", env=env, size=(120, 40)) as terminal:
        terminal.read_until(b"idle", "no first frame")
        terminal.write(b"draw\r")
        seen = bytearray()
        for _ in range(120):  # the panel (its still bar) and the end of the turn
            seen += terminal.read_for(0.5)
            if b"Board drawn." in seen and b"in progress" in seen and b"Scanning" in seen:
                break
        assert b"in progress" in seen and b"Board drawn." in seen, bytes(seen[-500:])
        terminal.read_for(SETTLE_SECONDS)
        idle = terminal.read_for(IDLE_SECONDS)
        assert idle == b"", f"{len(idle)} bytes while idle: {idle[:300]!r}"

"""A long tool call moves on a real terminal (issue 11, defect 7): the installed `raw-tui`
in tmux runs a bash command that sleeps and echoes; three captures 1.5 s apart differ (its
output, its elapsed time, the spinner). Once it is over, nothing moves: the screen stays the
same, and on a pty the UI writes no byte while idle after the call."""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.terminal_kit import (EXITED, RAW_TUI, Pty, Tmux, flat, isolated_env, needs_tmux,
                                    place)
from tests.config_kit import write_config, write_script

__all__ = ["place"]

pytestmark = needs_tmux

COMMAND = "for i in 1 2 3 4 5 6; do echo tick-$i; sleep 1; done"


def config(root: Path, command: str = COMMAND) -> Path:
    cfg = root / "cfg"
    write_script(cfg, {"tool_calls": [{"name": "bash", "arguments": {
        "commands": [{"command": command}]}}]}, {"text": "all done here"})
    write_config(cfg, {"tools": {"use": ["builtin/bash"], "rules": []}})
    return cfg / "raw.json"


def test_three_captures_during_a_long_bash_call_differ(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI), "--config", str(config(place))], cwd=place / "w")
        tmux.wait_for("idle")
        tmux.type("go")
        tmux.keys("Enter")
        tmux.wait_for("tick-1")
        captures = []
        for _ in range(3):
            captures.append(tmux.screen())
            time.sleep(1.5)
        assert len(set(captures)) == 3, "\n---\n".join(captures)
        assert all("running" in flat(c) for c in captures)
        assert "tick-1" in captures[0] and "tick-3" in captures[2]

        # over: the result replaces the live lines and nothing moves any more
        done = tmux.wait_for(lambda s: "all done here" in s and "idle" in s)
        assert "✔" in done and "running" not in done
        time.sleep(1.5)
        assert tmux.screen() == done
        tmux.keys("C-q")
        assert f"{EXITED}0" in tmux.wait_for(EXITED)
    finally:
        tmux.kill()


def test_no_byte_is_written_while_idle_after_a_call(place):
    env = isolated_env(place, TERM="xterm-256color", COLORTERM="truecolor")
    cfg = config(place, "echo first; sleep 1.2; echo second")
    with Pty([str(RAW_TUI), "--config", str(cfg)], cwd=place / "w", env=env,
             size=(80, 24)) as terminal:
        terminal.read_until(b"idle", "no first frame")
        terminal.read_for(1.0)
        terminal.write(b"go\r")
        terminal.read_until(b"all done here", "the turn did not end")
        terminal.read_for(3.0)  # the last repaints
        idle = terminal.read_for(8.0)
        assert idle == b"", f"{len(idle)} bytes while idle after a call: {idle[:300]!r}"

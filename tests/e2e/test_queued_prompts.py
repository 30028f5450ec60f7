"""A prompt typed while a turn runs is queued, shown as queued above the composer, and sent
when the turn ends; Esc takes the newest queued prompt back into the composer (the installed
`raw-tui` in tmux, keys as terminal bytes)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.terminal_kit import (EXITED, RAW_TUI, Tmux, composer_lines, flat, isolated_env,
                                    needs_tmux, place, send_bytes, status_line)
from tests.config_kit import write_config, write_script

__all__ = ["place"]

pytestmark = needs_tmux


def config(root: Path) -> Path:
    cfg = root / "cfg"
    write_script(cfg, {"tool_calls": [{"name": "bash", "arguments": {
        "commands": [{"command": "sleep 4"}]}}]}, {"text": "first answer"},
        {"text": "second answer"})
    write_config(cfg, {"tools": {"use": ["builtin/bash"], "rules": []}})
    return cfg / "raw.json"


def test_a_prompt_sent_while_a_turn_runs_waits_then_goes(place):
    tmux = Tmux(env=isolated_env(place), height=30)
    try:
        tmux.start([str(RAW_TUI), "--config", str(config(place))], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.type("go")
        send_bytes(tmux, b"\r")
        tmux.wait_for(lambda s: "running" in status_line(s))
        tmux.type("next one")
        send_bytes(tmux, b"\r")
        tmux.wait_for("⏸ queued next one")
        tmux.type("take me back")
        send_bytes(tmux, b"\r")
        screen = tmux.wait_for("⏸ queued take me back")
        assert "⏸ queued next one" in screen and "a turn is running" not in screen
        send_bytes(tmux, b"\x1b")  # Esc: the newest comes back to the composer
        screen = tmux.wait_for(lambda s: composer_lines(s) == ["take me back"])
        assert "queued take me back" not in screen and "⏸ queued next one" in screen
        assert "running" in status_line(screen)  # that Esc did not cancel the turn
        screen = tmux.wait_for(lambda s: "second answer" in s and "idle" in status_line(s))
        assert "first answer" in screen and flat("› next one") in flat(screen)
        assert "⏸ queued" not in screen and composer_lines(screen) == ["take me back"]
        tmux.keys("C-q")
        tmux.wait_for(EXITED)
    finally:
        tmux.kill()

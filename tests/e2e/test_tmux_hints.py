"""Hints name the command as the user ran it (docs/decisions.md): quitting a UI
started as `bin/raw-tui` (a venv's, not on PATH) says `bin/raw-tui --cwd … --continue`, and
`raw-tui attach` in a directory with no live session lists the live ones elsewhere."""

from __future__ import annotations

import os

from tests.e2e.terminal_kit import (EXITED, RAW_TUI, Tmux, flat, isolated_env, needs_tmux,
                                    place, quit_app, raw_tui_cli, status_line, prompt_demo)

__all__ = ["place"]

pytestmark = needs_tmux


def without_venv_on_path(env: dict[str, str]) -> dict[str, str]:
    venv_bin = str(RAW_TUI.parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin]
    return {**env, "PATH": os.pathsep.join(path)}


def test_the_quit_hint_names_the_program_as_typed(place):
    env = without_venv_on_path(isolated_env(place))
    tmux = Tmux(width=200, height=30, env=env)  # the hint on one line
    try:
        # typed relative to the venv, as the README's `.venv/bin/raw-tui` is
        tmux.start(["bin/raw-tui", "--cwd", str(place / "w")], cwd=RAW_TUI.parent.parent)
        prompt_demo(tmux, "hello")
        tmux.keys("d")
        tmux.wait_for("Ctrl+S submit")
        tmux.keys("Escape")  # cancel the question: the turn goes on to its end
        tmux.wait_for(lambda s: "idle" in status_line(s))
        screen = flat(quit_app(tmux))
    finally:
        tmux.kill()
    assert f"Continue it with: bin/raw-tui --cwd {place / 'w'} --continue" in screen, screen
    assert "from anywhere: bin/raw-tui --resume s" in screen, screen


def test_attach_elsewhere_lists_the_live_sessions(place):
    env = isolated_env(place)
    other = place / "elsewhere"
    other.mkdir()
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.keys("C-\\")  # detach: the session stays live in its host
        tmux.wait_for(f"{EXITED}0")
        (row,) = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
        session_id = row.split()[0]
        found = raw_tui_cli(env, other, "attach")
        assert found.returncode == 1
        lines = found.stderr.splitlines()
        assert lines[0].startswith(f"raw-tui: no live session in {other}; live elsewhere")
        assert "attach ID" in lines[0]
        assert lines[1].split() == [session_id, str(place / "w"), "(idle)"], lines
    finally:
        tmux.kill()
    again = Tmux(env=env)  # by its id it attaches from anywhere
    try:
        again.start([str(RAW_TUI), "attach", session_id], cwd=other)
        again.wait_for(lambda s: "idle" in status_line(s))
        quit_app(again)
    finally:
        again.kill()

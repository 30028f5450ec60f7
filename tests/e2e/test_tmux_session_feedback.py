"""What a session says about itself, in the real UI (tmux, 80×24): `/compact` says what it
did, and a launch that is quit before anything happened saves no session (no "(no prompt)"
rows in `sessions list`, no "Continue it with" hint), in a host and with `--no-detach`."""

from __future__ import annotations

import pytest

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, flat, isolated_env, needs_tmux, place,
                                    quit_app, raw_tui_cli, status_line)

__all__ = ["place"]

pytestmark = needs_tmux


@pytest.mark.parametrize("extra", [[], ["--no-detach"]], ids=["host", "no-detach"])
def test_a_launch_quit_without_a_prompt_saves_no_session(place, extra):
    env = isolated_env(place)
    for _ in range(2):
        tmux = Tmux(env=env)
        try:
            tmux.start([str(RAW_TUI), *extra], cwd=place / "w")
            tmux.wait_for(lambda s: "idle" in status_line(s))
            screen = quit_app(tmux)
        finally:
            tmux.kill()
        assert "saved" not in flat(screen) and "--continue" not in flat(screen), screen
    assert raw_tui_cli(env, place / "w", "sessions", "list").stdout == ""
    # with a prompt, it is saved and the hint says how to come back
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI), *extra], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.type("/compact")
        tmux.keys("Enter")
        tmux.wait_for("nothing to compact: the conversation is empty")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        screen = quit_app(tmux)
    finally:
        tmux.kill()
    assert "--continue" in "".join(screen.split())
    (row,) = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
    assert str(place / "w") in row


def test_compact_says_what_it_summarised(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        for prompt in ("Explain the plan", "explain the plan again", "and explain the plan"):
            tmux.type(prompt)
            tmux.keys("Enter")
            tmux.wait_for(lambda s, p=prompt: "idle" in status_line(s)
                          and -1 < flat(s).rfind(f"› {p}") < flat(s).rfind("four steps"))
        tmux.type("/compact")
        tmux.keys("Enter")
        tmux.wait_for("context compacted: 1 earlier turn summarised, 2 turns kept whole")
        quit_app(tmux)
    finally:
        tmux.kill()

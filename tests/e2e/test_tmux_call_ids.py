"""The demo run twice in one session, in the real UI (tmux, 80×24): the scripted model
numbers its calls from `call_1` again, yet the second run's tool blocks, approval and form
are its own (docs/decisions.md): drawn below the first run's, the form blank, and
the saved history keys every call, approval and form apart."""

from __future__ import annotations

import json
from collections import Counter

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, demo_note, isolated_env, needs_tmux,
                                    place, quit_app, raw_tui_cli, status_line)
from tests.e2e.test_tmux_demo import run_demo

__all__ = ["place"]

pytestmark = needs_tmux


def test_the_demo_again_draws_its_own_blocks_and_a_blank_form(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        run_demo(tmux, demo_note(env))  # the form answered Green
        tmux.type("again")
        tmux.keys("Enter")
        tmux.wait_for("Approve write_file?")
        tmux.keys("a")
        tmux.wait_for(lambda s: "Approve write_file?" not in s)
        # the second question: a form of its own at the foot of the chat, nothing chosen
        screen = tmux.wait_for(lambda s: "Which colour should the next demo use?" in s
                               and "Ctrl+S submit" in s)
        assert "( ) Green" in screen and "(•)" not in screen, screen
        tmux.keys("Enter")  # Blue
        tmux.wait_for("(•) Blue")
        tmux.keys("C-s")
        tmux.wait_for(lambda s: "All done. Try a panel action" in s and "idle" in status_line(s))
        # one write_file block per run
        tmux.keys("C-f")
        tmux.wait_for("search the chat")
        tmux.type("note.txt")
        tmux.wait_for(" 1/2")
        tmux.keys("Escape")
        quit_app(tmux)
    finally:
        tmux.kill()
    (row,) = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
    shown = raw_tui_cli(env, place / "w", "sessions", "show", row.split()[0])
    events = [json.loads(line) for line in shown.stdout.splitlines()]
    calls = Counter(e["call_id"] for e in events if e["type"] == "tool_call")
    assert len(calls) == 18 and set(calls.values()) == {1}, calls
    asked = [e["call_id"] for e in events if e["type"] == "approval_request"]
    assert len(set(asked)) == 2 and set(asked) <= set(calls)
    settled = [e for e in events if e["type"] == "interaction_settled"]
    assert [e["status"] for e in settled] == ["answered", "answered"]
    assert len({e["request_id"] for e in settled}) == 2
    forms = {e["call_id"] for e in events if e["type"] == "panel_state"
             and e["panel"] == "builtin/ask_user#ask"}
    assert len(forms) == 2, forms  # each question written by its own call

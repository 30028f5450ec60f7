"""Tool blocks say what the call does in one line (docs/decisions.md): the demo in
the real UI (tmux, 80×24) shows `todo: 0/4 done`, `bash: pwd && ls | head -15`, `write_file
…note.txt`, computed by the engine (the tool_call event's `summary`); the raw arguments are
not drawn until Enter on the block shows them."""

from __future__ import annotations

import json

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, demo_note, flat, isolated_env, needs_tmux,
                                    place, quit_app, raw_tui_cli, status_line)
from tests.e2e.test_tmux_demo import run_demo
from tests.config_kit import raw_tui

__all__ = ["place"]


def test_the_jsonl_tool_calls_carry_the_engines_summary(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    proc = raw_tui("--cwd", str(work), "run", "hello", "--output", "jsonl")
    calls = [json.loads(line) for line in proc.stdout.splitlines()
             if json.loads(line)["type"] == "tool_call"]
    assert [c["summary"] for c in calls[:5]] == [
        "todo: 0/4 done", "bash: pwd && ls | head -15", "todo: 1/4 done", "plan: 3 steps",
        "todo: 2/4 done"]
    assert calls[5]["summary"].startswith("write_file /") and \
        calls[5]["summary"].endswith("/demo-scratch/note.txt")


@needs_tmux
def test_tool_blocks_show_the_summary_and_enter_shows_the_arguments(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        run_demo(tmux, demo_note(env))
        tmux.keys("C-f")  # the search puts the chat's cursor on the bash block
        tmux.wait_for("search the chat")
        tmux.type("pwd && ls")
        tmux.wait_for(" 1/1")
        tmux.keys("Escape")
        screen = tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))
        assert "⚙ bash: pwd && ls | head -15  builtin/bash  allowed" in screen, screen
        assert "args {" not in screen and '"commands"' not in screen, screen
        tmux.keys("Enter")  # the arguments, a key away
        tmux.wait_for(lambda s: 'args {"commands": [{"command": "pwd && ls | head -15"}]}'
                      in flat(s))
        quit_app(tmux)
    finally:
        tmux.kill()

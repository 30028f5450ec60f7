"""Undo of a turn in the real UI in tmux (docs/checkpoints.md): a sandboxed bash call changes
a file and creates a folder; `u` on that turn in the chat shows the preview (each file and
its diff) with nothing changed yet; `Enter` puts the files back, and the chat says so."""

from __future__ import annotations

import json

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, flat, isolated_env, needs_tmux, place,
                                    quit_app, status_line)
from tests.config_kit import write_config
from tests.sandbox.sandbox_kit import needs_sandbox  # noqa: F401

__all__ = ["place"]

pytestmark = needs_tmux

COMMAND = "printf 'changed by bash\\n' > notes.txt && mkdir -p out && echo made > out/new.txt"


def script(work):
    call = {"name": "bash", "arguments": {"commands": [{"command": COMMAND}]}}
    lines = [{"text": "", "tool_calls": [call]}, {"text": "turn over"}]
    (work / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_u_on_a_turn_previews_its_undo_and_enter_puts_the_files_back(place, needs_sandbox):
    work = place / "w"
    write_config(work, {"tools": {"use": ["builtin/bash"], "rules": []}})
    script(work)
    (work / "notes.txt").write_text("original\n")
    tmux = Tmux(width=110, height=36, env=isolated_env(place))
    try:
        tmux.start([str(RAW_TUI)], cwd=work)
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.type("change the notes")
        tmux.keys("Enter")
        tmux.wait_for("turn over")
        assert (work / "notes.txt").read_text() == "changed by bash\n"
        assert (work / "out" / "new.txt").exists()
        tmux.keys("Tab")
        tmux.wait_for(lambda s: "chat" in status_line(s))
        tmux.keys("Home")
        tmux.keys("u")
        screen = flat(tmux.wait_for("Undo the changes of turn 1 and later?"))
        assert "restore notes.txt" in screen
        assert "remove out/new.txt" in screen and "remove out " in screen + " "
        assert "-changed by bash" in screen and "+original" in screen
        assert "Enter restore these files" in screen and "Esc cancel" in screen
        assert (work / "notes.txt").read_text() == "changed by bash\n"  # nothing yet
        tmux.keys("Enter")
        screen = flat(tmux.wait_for("↶ undo:"))
        assert "1 restored, 2 removed" in screen
        assert (work / "notes.txt").read_text() == "original\n"
        assert not (work / "out").exists()
        quit_app(tmux)
    finally:
        tmux.kill()

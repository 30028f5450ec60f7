"""Hooks reloaded while the installed `raw-tui` runs (tmux): the status line says so when
the new version takes over at a turn's start, and says why when a change is rejected (the
last good version stays)."""

from __future__ import annotations

import json
import time

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, isolated_env, place, quit_app,
                                    status_line)
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import write_config

__all__ = ["place"]

SCRIPT = "sys.stdin.read()\n"


def test_the_status_line_shows_hook_reloads(place):
    work = place / "w"
    (work / "script.jsonl").write_text(json.dumps({"text": "first answer"}) + "\n")
    write_config(work, {"tools": {"use": ["builtin/read_file"]},
                        "hooks": {"use": ["agent/logger"]}})
    hook = write_hook(work, "logger", SCRIPT, events=["UserPromptSubmit"], timeout_ms=5000)
    tmux = Tmux(width=120, height=30, env=isolated_env(place))
    try:
        tmux.start([str(RAW_TUI)], cwd=work)
        tmux.wait_for(lambda s: "idle" in status_line(s) and "main" in status_line(s))
        tmux.type("one")
        tmux.keys("Enter")
        tmux.wait_for("first answer")
        tmux.wait_for(lambda s: "idle" in status_line(s))

        # a valid change: validated at once, used from the next turn's start
        manifest = json.loads((hook / "hook.json").read_text())
        (hook / "hook.json").write_text(json.dumps({**manifest, "timeout_ms": 4000}))
        deadline = time.monotonic() + 30
        for n in range(1, 1000):  # the watcher takes a moment to see the change: a turn per try
            tmux.type(f"again {n}")
            tmux.keys("Enter")
            # the user message is drawn after the turn's `running` state: idle then is its end
            screen = tmux.wait_for(lambda s: f"› again {n}" in s and "idle" in status_line(s))
            if "hooks reloaded: agent/logger" in status_line(screen):
                break
            assert time.monotonic() < deadline, screen
            time.sleep(0.2)

        # a broken change: rejected at once, said in the status line and the chat
        (hook / "hook.json").write_text(json.dumps({**manifest, "bogus": 1}))
        screen = tmux.wait_for(lambda s: "hooks reload rejected" in status_line(s))
        assert "bogus" in screen
        quit_app(tmux)
    finally:
        tmux.kill()

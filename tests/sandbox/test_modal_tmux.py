"""The approval modal of a sandboxed bash call, in the real UI in tmux: the file list and the
diff of what the dry run changed, before anything lands; `a` commits it, `d` leaves nothing."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.e2e.terminal_kit import RAW_TUI, Tmux, isolated_env, place, quit_app, status_line
from tests.config_kit import write_config
from tests.sandbox.sandbox_kit import ASK_ALL, needs_sandbox  # noqa: F401

__all__ = ["place"]

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

COMMAND = "mkdir -p out && printf 'hello from the layer\\n' > out/greeting.txt"


def script(work):
    call = {"name": "bash", "arguments": {"commands": [{"command": COMMAND}]}}
    lines = [{"text": "", "tool_calls": [call]}, {"text": "turn over"}]
    (work / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.mark.parametrize("key", ["a", "d"])
def test_the_modal_shows_the_observed_change(place, needs_sandbox, key):
    work = place / "w"
    write_config(work, {"tools": {"use": ["builtin/bash"], "rules": ASK_ALL}})
    script(work)
    tmux = Tmux(width=120, height=40, env=isolated_env(place))
    try:
        tmux.start([str(RAW_TUI)], cwd=work)
        screen = tmux.wait_for(lambda s: "idle" in status_line(s))
        assert "sandbox: overlay · net off" in status_line(screen)
        tmux.type("go")
        tmux.keys("Enter")
        # the modal whole (a loaded machine may draw it over more than one frame)
        screen = tmux.wait_for(lambda s: "Observed in the sandbox" in s
                               and "+hello from the layer" in s)
        assert "dry run · network off" in screen
        assert str(work / "out" / "greeting.txt") in screen
        assert not (work / "out").exists()  # nothing landed before the answer
        tmux.keys(key)
        tmux.wait_for("turn over")
        if key == "a":
            assert (work / "out" / "greeting.txt").read_text() == "hello from the layer\n"
        else:
            assert not (work / "out").exists()
        quit_app(tmux)
    finally:
        tmux.kill()

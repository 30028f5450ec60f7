"""When the session host cannot start (here: the socket directory is mode 755), the real UI
in tmux says why in one line and runs the session in its own process: a prompt reaches the
demo's approval, `a` writes the file, and no host process was started. With `ui.detach: true`
in the config the same line is the UI's error (exit 1), never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.e2e.terminal_kit import (EXITED, RAW_TUI, Tmux, demo_note, flat, isolated_env,
                                    place, quit_app)
from tests.e2e.test_detach_tmux import reach_the_modal
from tests.config_kit import session_host_pids

__all__ = ["place"]

MARK = os.environ.get("RAW_TUI_TEST_RUN", "")
WHY = "the session host could not start (socket directory"


def _open_socket_dir(env: dict[str, str]) -> Path:
    folder = Path(env["XDG_RUNTIME_DIR"]) / "raw-tui"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    return folder


def test_a_host_that_cannot_start_runs_the_session_in_the_ui(place):
    env = isolated_env(place)
    folder = _open_socket_dir(env)
    note = demo_note(env)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        screen = tmux.wait_for(WHY)
        assert f"{folder}: mode 755, must be 700" in flat(screen)
        assert "runs inside the UI" in flat(screen)
        assert session_host_pids(MARK) == []
        reach_the_modal(tmux, note, "hello")
        tmux.keys("a")
        tmux.wait_for("Which colour should the next demo use?")
        assert note.exists()
        assert session_host_pids(MARK) == []  # the session ran in the UI's own process
        left = quit_app(tmux)
        assert "Traceback" not in left
    finally:
        tmux.kill()
    assert os.listdir(folder) == []  # nothing was put in the refused directory


def test_with_ui_detach_true_a_host_that_cannot_start_is_the_error(place):
    env = isolated_env(place)
    _open_socket_dir(env)
    config = place / "w" / "raw.json"
    demo = Path(__import__("raw_tui.demo", fromlist=["x"]).__file__).parent / "raw.json"
    data = json.loads(demo.read_text())
    data.setdefault("ui", {})["detach"] = True
    config.write_text(json.dumps(data))
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI), "--config", str(demo)], cwd=place / "w")  # the demo as is
        tmux.wait_for(WHY)
        tmux.kill()
        tmux = Tmux(env=env)
        tmux.start([str(RAW_TUI)], cwd=place / "w")  # ./raw.json says detach: true
        screen = tmux.wait_for(f"{EXITED}1")
        assert "raw-tui: socket directory " in flat(screen)
        assert "Traceback" not in screen
    finally:
        tmux.kill()
    assert session_host_pids(MARK) == []

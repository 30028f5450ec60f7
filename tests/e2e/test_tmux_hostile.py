"""The full-screen UI started on a broken history (docs/security.md, "Hostile input"), in a real terminal: the app
ends and the terminal shows one line naming the database, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.terminal_kit import EXITED, RAW_TUI, Tmux, isolated_env, place  # noqa: F401
from tests.config_kit import write_config


@pytest.mark.parametrize("how", ["corrupt", "state_is_a_file"])
def test_the_ui_on_a_broken_history_ends_with_one_line(place, how):  # noqa: F811
    env = isolated_env(place)
    state = Path(env["XDG_STATE_HOME"]) / "raw-tui"
    database = state / "history.sqlite3"
    if how == "corrupt":
        state.mkdir(parents=True)
        database.write_bytes(b"not a database\n" * 100)
    else:
        state.write_text("a file\n")
    write_config(place / "w", {"tools": {"use": ["builtin/read_file"]}})
    tmux = Tmux(width=200, height=30, env=env)
    try:
        tmux.start([str(RAW_TUI), "--config", str(place / "w" / "raw.json")], cwd=place / "w")
        screen = tmux.wait_for(f"{EXITED}1")
    finally:
        tmux.kill()
    lines = [line.strip() for line in screen.splitlines() if line.strip()]
    assert "Traceback" not in screen
    assert lines[-2].startswith(f"raw-tui: history {database}: "), screen

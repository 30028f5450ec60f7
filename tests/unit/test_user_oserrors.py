"""An OSError the user can cause is one line `raw-tui: WHAT: WHY`, never a traceback: a
`system_prompt_file` naming a directory (config list, run), `serve` on a port in use or out
of range (before any session host starts)."""

from __future__ import annotations

import socket

import pytest

from tests.config_kit import raw_tui, session_host_pids, write_config


def _one_line(proc, code: int) -> str:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize("command", [["config", "list"], ["run", "hi"]])
def test_a_system_prompt_file_naming_a_directory_is_one_line(tmp_path, command):
    (tmp_path / "prompts").mkdir()
    config = write_config(tmp_path, {"system_prompt_file": "prompts", "tools": {"use": []}})
    line = _one_line(raw_tui("--config", str(config), "--cwd", str(tmp_path), *command), 2)
    assert line == (f"raw-tui: config error: {config}: agents.main.system_prompt_file: "
                    f"{tmp_path / 'prompts'}: cannot read: a directory")


def test_serve_on_a_port_in_use_is_one_line_and_starts_no_host(tmp_path):
    import os

    config = write_config(tmp_path, {"tools": {"use": []}})
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = raw_tui("--config", str(config), "--cwd", str(tmp_path), "serve", "--port",
                       str(port))
    line = _one_line(proc, 1)
    assert line == f"raw-tui: serve: 127.0.0.1:{port}: Address already in use"
    assert session_host_pids(os.environ["RAW_TUI_TEST_RUN"]) == []


def test_serve_on_a_port_out_of_range_is_one_line(tmp_path):
    config = write_config(tmp_path, {"tools": {"use": []}})
    proc = raw_tui("--config", str(config), "--cwd", str(tmp_path), "serve", "--port", "99999")
    assert _one_line(proc, 2) == "raw-tui: serve: --port 99999: not a port (0-65535)"


@pytest.mark.parametrize("command", [["acp"], ["config", "list"], ["sessions", "list"]])
def test_a_state_dir_that_is_a_file_is_one_line(tmp_path, command):
    from raw_tui.paths import state_home

    config = write_config(tmp_path / "cfg", {"tools": {"use": []}})
    state_home().parent.mkdir(parents=True, exist_ok=True)
    state_home().write_text("in the way\n")
    proc = raw_tui("--config", str(config), "--cwd", str(tmp_path), *command, input="")
    assert "Traceback" not in proc.stderr
    if proc.returncode != 0:
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith("raw-tui: ") and str(state_home()) in line
        assert line.endswith(("Not a directory", "is not a folder"))

"""State files only their user may read: the history database (and its WAL files), host logs,
`acp.log`, MCP logs are 0600, in 0700 directories from the state directory down; an older
0644 file or 0755 directory of ours is tightened."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
from pathlib import Path

from raw_tui.paths import open_private, private_dir, state_home
from tests.config_kit import raw_tui, write_config, write_script
from tests.host.host_kit import setup, start, wait_gone
from tests.mcpgate.mcp_kit import fixture_server, mcp_config


def _modes(root: Path) -> dict[str, int]:
    out = {".": stat.S_IMODE(root.lstat().st_mode)}
    for path in root.rglob("*"):
        out[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return out


def _assert_private(root: Path) -> dict[str, int]:
    modes = _modes(root)
    for name, mode in modes.items():
        path = root / name
        want = 0o700 if path.is_dir() else 0o600
        assert mode == want, f"{name}: {mode:o}, want {want:o} ({modes})"
    return modes


def test_a_run_writes_its_history_private(tmp_path):
    cfg = tmp_path / "cfg"
    write_script(cfg, {"text": "hello"})
    config = write_config(cfg, {"tools": {"use": []}})
    proc = raw_tui("--config", str(config), "--cwd", str(tmp_path), "run", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "history.sqlite3" in _assert_private(state_home())


def test_an_older_world_readable_history_is_tightened(tmp_path):
    cfg = tmp_path / "cfg"
    write_script(cfg, {"text": "hello"}, {"text": "again"})
    config = write_config(cfg, {"tools": {"use": []}})
    assert raw_tui("--config", str(config), "--cwd", str(tmp_path), "run", "hi").returncode == 0
    home = state_home()
    os.chmod(home, 0o755)
    for path in home.iterdir():
        os.chmod(path, 0o644)
    proc = raw_tui("--config", str(config), "--cwd", str(tmp_path), "sessions", "list")
    assert proc.returncode == 0, proc.stderr
    _assert_private(home)


def test_host_logs_are_private(tmp_path):
    args = setup(tmp_path, [])
    host = start(args)
    try:
        assert stat.S_IMODE(host.log.lstat().st_mode) == 0o600
        assert stat.S_IMODE(host.log.parent.lstat().st_mode) == 0o700
        modes = _assert_private(state_home())  # the database open: its WAL files too
        assert "history.sqlite3-wal" in modes and "history.sqlite3-shm" in modes
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)
    _assert_private(state_home())


def test_acp_log_is_private(tmp_path):
    config = write_config(tmp_path / "cfg", {"tools": {"use": []}})
    proc = subprocess.run([*raw_tui_argv(), "--config", str(config), "--cwd", str(tmp_path),
                           "acp"], input="", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (state_home() / "acp.log").exists()
    _assert_private(state_home())


def test_mcp_logs_are_private(tmp_path):
    config = mcp_config(tmp_path, {"fx": fixture_server()}, ["mcp/fx/echo"])
    proc = raw_tui("--config", str(config), "--cwd", str(tmp_path), "config", "list")
    assert proc.returncode == 0, proc.stderr
    assert (state_home() / "mcp" / "fx.log").exists()
    _assert_private(state_home())


def test_private_helpers_tighten_only_what_is_ours(tmp_path):
    folder = private_dir(state_home() / "a" / "b")
    assert _modes(state_home()) == {".": 0o700, "a": 0o700, "a/b": 0o700}
    existing = folder / "f.log"
    existing.write_text("x")
    os.chmod(existing, 0o644)
    os.close(open_private(existing))
    assert stat.S_IMODE(existing.stat().st_mode) == 0o600
    assert existing.read_text() == "x"  # appended to, never truncated


def raw_tui_argv() -> list[str]:
    import sys

    return [sys.executable, "-m", "raw_tui.cli"]

"""SIGHUP and SIGTERM end `raw-tui run` and `raw-tui call` as cleanly as SIGINT: the turn
cancelled, every process of the running command ended (a setsid grandchild too), the
history whole, the hooks' temporary copies removed. Real subprocesses, signals from outside."""

from __future__ import annotations

import json
import shutil
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.headless_kit import run_end
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import raw_tui, write_config, write_script
from raw_tui.tools.proctree import all_procs
from tests.proctree_kit import kill_marked, marker, survivors, with_marker

SIGNALS = [signal.SIGHUP, signal.SIGTERM, signal.SIGINT]


@pytest.fixture
def mark():
    value = marker()
    yield value
    kill_marked(value)


def long_command(mark: str) -> str:
    return f"(setsid sleep {mark} >/dev/null 2>&1 &); (sleep {mark} &); sleep {mark}"


def setup(tmp_path: Path, mark: str) -> tuple[Path, Path, dict]:
    cfg = tmp_path / "cfg"
    write_script(cfg, {"text": "Working.", "tool_calls": [
        {"name": "bash", "arguments": {"commands": [{"command": long_command(mark)}]}}]},
        {"text": "Never read."})
    write_hook(cfg, "note", "sys.stdin.read()", events=["PreToolUse", "PostToolUseFailure"])
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "hooks": {"use": ["agent/note"]}})
    work = tmp_path / "work"
    work.mkdir()
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    return cfg, work, env


def wait_started(mark: str, count: int = 3, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while len(with_marker(mark)) < count:
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)


def signal_midway(cfg: Path, work: Path, env: dict, mark: str, sig: int, *command: str):
    """Start `raw-tui COMMAND…`, send `sig` once the long command runs; (proc, out, err)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "raw_tui.cli", "--config", str(cfg / "raw.json"), "--cwd",
         str(work), *command],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        wait_started(mark)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc, out, err


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_signal_ends_run_cleanly(tmp_path, mark, sig):
    cfg, work, env = setup(tmp_path, mark)
    proc, out, err = signal_midway(cfg, work, env, mark, sig, "run", "go", "--output", "jsonl")
    events = [json.loads(line) for line in out.splitlines()]
    assert proc.returncode == 130, err
    assert run_end(events)["status"] == "cancelled"
    assert survivors(mark) == []
    assert list((tmp_path / "tmp").iterdir()) == []  # the hooks' copies are gone
    session_id = events[0]["session_id"]
    shown = raw_tui("sessions", "show", session_id, env={"TMPDIR": str(tmp_path / "tmp")})
    stored = [json.loads(line) for line in shown.stdout.splitlines()]
    types = [e["type"] for e in stored]
    assert "run_end" in types and stored[types.index("run_end")]["status"] == "cancelled"
    results = [e for e in stored if e["type"] == "tool_result"]
    assert [r["code"] for r in results] == ["cancelled"]
    # everything published is stored, in order (turn_state and tool_output are live-only)
    streamed = ("turn_state", "assistant_delta", "tool_output")
    live = [e for e in events if e["type"] not in streamed]
    assert [e for e in stored if e["type"] not in streamed] == live


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_signal_ends_call_cleanly(tmp_path, mark, sig):
    cfg, work, env = setup(tmp_path, mark)
    args = json.dumps({"commands": [{"command": long_command(mark)}]})
    proc, out, err = signal_midway(cfg, work, env, mark, sig, "call", "bash", "--args", args)
    assert proc.returncode == 130, err
    report = json.loads(out)
    assert report["outcome"] == "ran" and report["result"]["code"] == "cancelled"
    assert survivors(mark) == []
    assert list((tmp_path / "tmp").iterdir()) == []


def children_of(pid: int) -> list[int]:
    return [p.pid for p in all_procs() if p.ppid == pid and p.live]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM], ids=lambda s: s.name)
def test_a_signal_ends_the_ui_cleanly(tmp_path, mark, sig):
    from tests.e2e.terminal_kit import EXITED, RAW_TUI, Tmux, isolated_env

    cfg, work, env = setup(tmp_path, mark)
    env = isolated_env(tmp_path / "home", TMPDIR=str(tmp_path / "tmp"))
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI), "--no-detach", "--config", str(cfg / "raw.json")]
                   if "--no-detach" in raw_tui("--help").stdout else
                   [str(RAW_TUI), "--config", str(cfg / "raw.json")], cwd=work)
        tmux.wait_for(lambda s: "idle" in s)
        tmux.type("go")
        tmux.keys("Enter")
        wait_started(mark)
        pane = int(tmux._tmux("display", "-p", "-t", tmux.name, "#{pane_pid}").stdout)
        (ui,) = children_of(pane)
        os.kill(ui, sig)
        screen = tmux.wait_for(EXITED)
        assert f"{EXITED}130" in screen, screen
    finally:
        tmux.kill()
    assert survivors(mark) == []
    assert [p.name for p in (tmp_path / "tmp").iterdir()
            if p.name.startswith("raw-tui-hook-")] == []
    listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=env, cwd=work,
                             capture_output=True, text=True, timeout=60)
    session_id = listing.stdout.split()[0]
    shown = subprocess.run([str(RAW_TUI), "sessions", "show", session_id], env=env, cwd=work,
                           capture_output=True, text=True, timeout=60)
    stored = [json.loads(line) for line in shown.stdout.splitlines()]
    ends = [e for e in stored if e["type"] == "run_end"]
    assert [e["status"] for e in ends] == ["cancelled"]
    assert [e["code"] for e in stored if e["type"] == "tool_result"] == ["cancelled"]

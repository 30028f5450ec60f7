"""Another process holding the history database locked mid-run: the write waits for it
(bounded by `store.BUSY_TIMEOUT_S`) and the history stays whole; a lock held longer ends the
run with one line and exit 1, never a silent gap."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from raw_tui.paths import state_home
from raw_tui.session.store import BUSY_TIMEOUT_S
from tests.config_kit import raw_tui, write_config, write_script
from tests.host.host_kit import bash_call

LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("COMMIT")
"""


def _run_with_a_lock(tmp_path, hold_s: float) -> tuple[subprocess.CompletedProcess, float]:
    """`raw-tui run` whose bash call (2 s) is running when another process locks the
    database for `hold_s`: the run's result, and how long it took after the lock."""
    cfg = tmp_path / "cfg"
    write_script(cfg, bash_call("sleep 2"), {"text": "done"})
    config = write_config(cfg, {"tools": {"use": ["builtin/bash"], "rules": [
        {"match": "builtin/bash", "effect": "allow"}]}})
    run = subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "--config", str(config),
                            "--cwd", str(tmp_path), "run", "go", "--output", "jsonl"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    locker = None
    try:
        for line in run.stdout:
            lines.append(line)
            if json.loads(line)["type"] == "tool_call":
                locker = subprocess.Popen([sys.executable, "-c", LOCKER,
                                           str(state_home() / "history.sqlite3"), str(hold_s)],
                                          stdout=subprocess.PIPE, text=True)
                assert locker.stdout.readline() == "locked\n"
                locked_at = time.monotonic()
                break
        rest, err = run.communicate(timeout=BUSY_TIMEOUT_S + 60)
        took = time.monotonic() - locked_at
    finally:
        for proc in (run, locker):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    return subprocess.CompletedProcess(run.args, run.returncode, "".join(lines) + rest,
                                       err), took


def _stored(tmp_path) -> list[dict]:
    listing = raw_tui("--cwd", str(tmp_path), "sessions", "list")
    (row,) = listing.stdout.splitlines()
    shown = raw_tui("--cwd", str(tmp_path), "sessions", "show", row.split()[0])
    return [json.loads(line) for line in shown.stdout.splitlines()]


def test_a_write_waits_for_a_database_locked_for_9_s(tmp_path):
    proc, took = _run_with_a_lock(tmp_path, 9)
    assert proc.returncode == 0, proc.stderr
    assert took >= 8  # the tool_result's write waited for the lock
    stored = _stored(tmp_path)
    types = [e["type"] for e in stored]
    assert "tool_result" in types and types[-1] == "run_end"
    done = [i for i, e in enumerate(stored) if e.get("text") == "done"]
    assert done and done[0] > types.index("tool_result")  # the model's reply came after it


def test_a_lock_held_past_the_bound_ends_the_run_with_one_line(tmp_path):
    proc, took = _run_with_a_lock(tmp_path, BUSY_TIMEOUT_S + 30)
    assert proc.returncode == 1, proc.stderr
    assert took < BUSY_TIMEOUT_S + 15  # ended at the bound, not when the lock went
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("raw-tui: history ")]
    assert line.endswith("database is locked (tool_result not saved)")
    events = [json.loads(x) for x in proc.stdout.splitlines()]
    assert events[-1]["type"] == "run_end" and events[-1]["status"] == "cancelled"
    assert not [e for e in events if e.get("text") == "done"]  # the run went no further

"""Helpers for tests: writers for configs and tool folders, and the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def write_tool(config_dir: Path, tool_id: str, code: str, *, name: str | None = None,
               schema: dict | None = None, effects_schema: dict | None = None,
               condition_sources: list[str] | None = None, panels: list | None = None,
               extra: dict | None = None) -> Path:
    """Write `tools/<id>/tool.json` and `tools/<id>/tool.py` beside a config."""
    folder = config_dir / "tools" / tool_id
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "api_version": 2,
        "id": tool_id,
        "version": "1.0.0",
        "name": name or tool_id,
        "description": f"Test tool {tool_id}.",
        "input_schema": schema or {"type": "object", "properties": {"text": {"type": "string"}}},
        "entry": "./tool.py",
    }
    if effects_schema is not None:
        manifest["effects_schema"] = effects_schema
    if condition_sources is not None:
        manifest["condition_sources"] = condition_sources
    if panels is not None:
        manifest["panels"] = panels
    manifest.update(extra or {})
    (folder / "tool.json").write_text(json.dumps(manifest, indent=2))
    (folder / "tool.py").write_text(textwrap.dedent(code))
    return folder


def write_config(config_dir: Path, agent: dict, *, models: dict | None = None,
                 extra: dict | None = None) -> Path:
    config_dir.mkdir(parents=True, exist_ok=True)
    data = {
        "default_agent": "main",
        "models": models or {"m": {"method": "scripted", "script": "script.jsonl"}},
        "agents": {"main": {"model": "m", **agent}},
    }
    data.update(extra or {})
    if not (config_dir / "script.jsonl").exists():
        (config_dir / "script.jsonl").write_text("")
    path = config_dir / "raw.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def write_script(config_dir: Path, *lines: dict) -> None:
    """The scripted model's replies, one a line (`script.jsonl` beside a config)."""
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def raw_tui(*args: str, cwd: Path | None = None, input: str | None = None,
            env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run the real command line in a subprocess."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "raw_tui.cli", *args], cwd=cwd,
                          capture_output=True, text=True, input=input, env=full_env,
                          timeout=timeout)



def session_host_pids(mark: str) -> list[int]:
    """Session hosts (`python -m raw_tui.host`) started under this test run (their
    environment carries RAW_TUI_TEST_RUN=mark)."""
    pids = []
    needle = f"RAW_TUI_TEST_RUN={mark}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            if b"raw_tui.host" not in cmdline:
                continue
            if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                pids.append(int(entry))
        except OSError:
            continue
    return pids


def end_session_hosts(mark: str, timeout: float = 15) -> None:
    import signal
    import time

    pids = session_host_pids(mark)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while pids and time.monotonic() < deadline:
        time.sleep(0.05)
        pids = [pid for pid in pids if _running(pid)]
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _running(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def alive(pid: int) -> bool:
    """True until the process and all its threads have exited. A SIGKILLed leader shows as a
    zombie while its other threads still run their exit, holding its open files (a listening
    socket among them): it counts as alive until it is the last task left. A reaped or
    zombie-and-alone process is gone."""
    try:
        state = Path(f"/proc/{pid}/status").read_text()
        tasks = len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return False
    return "\nState:\tZ" not in state or tasks > 1

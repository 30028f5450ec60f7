"""Issue 14: a real ACP client that no one here wrote drives `raw-tui acp`.

`acpx` (npm, "Headless CLI client for the Agent Client Protocol") runs a scripted multi-tool
task — a plan from the todo panel, a read, a write behind an `ask` rule — once approving
everything (`--approve-all`) and once denying (`--deny-all`). The file on disk, acpx's JSON
transcript of the protocol, and raw-tui's saved history are checked.

acpx is installed by this test with npm into a cache directory (`RAW_TUI_NPM_CACHE`, default
`~/.cache/raw-tui-tests/npm`); without node and npm it skips, saying so (`scripts/test`
installs them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.config_kit import raw_tui, write_config

ACPX_VERSION = "0.19.1"
ACPX_PERMISSION_DENIED = 5  # acpx's exit code when a permission was denied (docs/exit-codes)

SCRIPT = [
    {"text": "Planning.", "tool_calls": [{"name": "todo", "id": "c_plan", "arguments": {"todos": [
        {"id": "a", "content": "Read the notes", "status": "in_progress"},
        {"id": "b", "content": "Write the summary", "status": "pending"}]}}]},
    {"tool_calls": [{"name": "read_file", "id": "c_read", "arguments": {"path": "notes.txt"}}]},
    {"tool_calls": [{"name": "write_file", "id": "c_write", "arguments": {"operations": [
        {"mode": "overwrite", "path": "summary.txt", "content": "the notes say hello\n"}]}}]},
    {"text": "Summary written."},
]


@pytest.fixture(scope="module")
def acpx() -> Path:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node and npm are not installed (scripts/test installs them)")
    cache = Path(os.environ.get("RAW_TUI_NPM_CACHE",
                                Path.home() / ".cache" / "raw-tui-tests" / "npm"))
    prefix = cache / f"acpx-{ACPX_VERSION}"
    binary = prefix / "node_modules" / ".bin" / "acpx"
    if not binary.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit",
                               "--no-fund", "--loglevel=error", f"acpx@{ACPX_VERSION}"],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0 or not binary.exists():
            pytest.skip(f"npm could not install acpx@{ACPX_VERSION}: "
                        f"{proc.stderr.strip().splitlines()[-1:]}")
    return binary


def setup(tmp_path: Path, isolated_home: Path) -> tuple[Path, Path]:
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/read_file", "builtin/write_file",
                                         "builtin/todo"],
                                 "rules": [{"match": "builtin/write_file", "effect": "ask"}]}})
    (cfg / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in SCRIPT))
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n")
    agent = tmp_path / "raw-tui-acp.sh"  # what an editor's settings name: one command
    agent.write_text(
        "#!/bin/sh\n"
        f"export XDG_STATE_HOME='{isolated_home / 'state'}' "
        f"XDG_CONFIG_HOME='{isolated_home / 'config'}'\n"
        f"exec '{sys.executable}' -m raw_tui.cli --config '{cfg / 'raw.json'}' acp\n")
    agent.chmod(0o755)
    return work, agent


def run_acpx(acpx: Path, agent: Path, work: Path, tmp_path: Path, policy: str):
    env = {**os.environ, "HOME": str(tmp_path / "acpx-home"),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.run([str(acpx), "--agent", str(agent), policy, "--format", "json",
                           "--timeout", "60", "exec", "summarise the notes"],
                          cwd=work, capture_output=True, text=True, env=env, timeout=120)
    messages = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc, messages


def answer_to(messages: list[dict], request: dict) -> dict:
    """The reply to `request` (ids of the two directions overlap: the first reply after it)."""
    after = messages[messages.index(request) + 1:]
    return next(m for m in after if m.get("id") == request["id"] and "method" not in m)


def updates(messages: list[dict]) -> list[dict]:
    return [m["params"]["update"] for m in messages if m.get("method") == "session/update"]


def saved_events(isolated_home: Path, session_id: str) -> list[dict]:
    shown = raw_tui("sessions", "show", session_id,
                    env={"XDG_STATE_HOME": str(isolated_home / "state")})
    assert shown.returncode == 0, shown.stderr
    return [json.loads(line) for line in shown.stdout.splitlines()]


def test_acpx_approves_the_write(acpx, tmp_path, isolated_home):
    work, agent = setup(tmp_path, isolated_home)
    proc, messages = run_acpx(acpx, agent, work, tmp_path, "--approve-all")
    assert proc.returncode == 0, proc.stderr
    assert (work / "summary.txt").read_text() == "the notes say hello\n"
    init = next(m for m in messages if m.get("id") == 0 and "result" in m)
    assert init["result"]["agentInfo"]["name"] == "raw-tui"
    [asked] = [m for m in messages if m.get("method") == "session/request_permission"]
    params = asked["params"]
    assert params["toolCall"]["toolCallId"] == "c_write"
    assert [(o["optionId"], o["kind"]) for o in params["options"]] == [
        ("allow", "allow_once"), ("deny", "reject_once")]
    assert params["toolCall"]["_meta"]["raw"]["effects"]["files"][0]["path"] == \
        str(work / "summary.txt")
    answer = answer_to(messages, asked)
    assert answer["result"]["outcome"] == {"outcome": "selected", "optionId": "allow"}
    seen = updates(messages)
    kinds = [u["sessionUpdate"] for u in seen]
    assert {"agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update",
            "plan"} <= set(kinds)
    plan = next(u for u in seen if u["sessionUpdate"] == "plan")
    assert [e["content"] for e in plan["entries"]] == ["Read the notes", "Write the summary"]
    read = next(u for u in seen if u.get("toolCallId") == "c_read"
                and u["sessionUpdate"] == "tool_call")
    assert read["kind"] == "read" and read["locations"] == [{"path": str(work / "notes.txt")}]
    final = [m for m in messages if "result" in m and "stopReason" in m["result"]]
    assert final[-1]["result"]["stopReason"] == "end_turn"
    session_id = next(m for m in messages if "result" in m
                      and "sessionId" in (m["result"] or {}))["result"]["sessionId"]
    events = saved_events(isolated_home, session_id)
    decisions = [(e["call_id"], e["allow"]) for e in events if e["type"] == "approval_decision"]
    assert decisions == [("c_write", True)]
    assert events[-1]["type"] in ("turn_state", "hook_event", "run_end")


def test_acpx_denies_the_write(acpx, tmp_path, isolated_home):
    work, agent = setup(tmp_path, isolated_home)
    proc, messages = run_acpx(acpx, agent, work, tmp_path, "--deny-all")
    assert proc.returncode == ACPX_PERMISSION_DENIED, proc.stderr
    assert not (work / "summary.txt").exists()
    [asked] = [m for m in messages if m.get("method") == "session/request_permission"]
    answer = answer_to(messages, asked)
    assert answer["result"]["outcome"] == {"outcome": "selected", "optionId": "deny"}
    failed = [u for u in updates(messages) if u.get("toolCallId") == "c_write"
              and u.get("status") == "failed"]
    assert failed and failed[-1]["rawOutput"]["code"] == "approval_denied"
    session_id = next(m for m in messages if "result" in m
                      and "sessionId" in (m["result"] or {}))["result"]["sessionId"]
    events = saved_events(isolated_home, session_id)
    results = {e["call_id"]: e.get("code") for e in events if e["type"] == "tool_result"}
    assert results["c_write"] == "approval_denied" and results["c_read"] is None
    assert [e["status"] for e in events if e["type"] == "run_end"] == ["completed"]

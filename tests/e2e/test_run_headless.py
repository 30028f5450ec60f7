"""`raw-tui run` as a user runs it: a subprocess, a scripted model, JSONL parsed event by
event, exit codes of docs/command-line.md."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.e2e.headless_kit import kinds, run_end
from tests.config_kit import alive, raw_tui, write_config, write_script


def setup(tmp_path, *lines, rules=None, use=None, **agent):
    cfg = tmp_path / "cfg"
    write_script(cfg, *lines)
    tools = {"use": use or ["builtin/read_file", "builtin/write_file", "builtin/bash"],
             "rules": rules or []}
    write_config(cfg, {"tools": tools, **agent})
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return cfg, work


def run(cfg, work, prompt="go", *extra, input=None):
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", prompt,
                   "--output", "jsonl", *extra, input=input)
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    return proc, events


def test_text_only_run(tmp_path):
    cfg, work = setup(tmp_path, {"text": "Hello there, human."})
    proc, events = run(cfg, work, "hi")
    assert proc.returncode == 0, proc.stderr
    assert kinds(events) == ["session_start", "user_message", "assistant_text", "run_end"]
    deltas = [e["text"] for e in events if e["type"] == "assistant_delta"]
    assert "".join(deltas) == "Hello there, human." and len(deltas) == 3
    end = run_end(events)
    assert end == {"type": "run_end", "status": "completed", "turn_id": end["turn_id"]}
    assert {e.get("turn_id") for e in events if e["type"] in ("user_message", "assistant_text")} \
        == {end["turn_id"]}


def test_multi_tool_task(tmp_path):
    cfg, work = setup(
        tmp_path,
        {"text": "Writing.", "tool_calls": [
            {"name": "write_file", "arguments": {"operations": [
                {"mode": "overwrite", "path": "notes.txt", "content": "one\ntwo\n"}]}},
            {"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"commands": [{"command": "wc -l notes.txt"}]}}]},
        {"text": "Done."})
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    assert kinds(events) == [
        "session_start", "user_message", "assistant_text",
        "tool_call", "tool_result", "file_changes", "tool_call", "tool_result",
        "assistant_text", "tool_call", "tool_result", "assistant_text", "run_end"]
    results = [e for e in events if e["type"] == "tool_result"]
    assert not any(r["isError"] for r in results)
    assert "2 notes.txt" in results[2]["content"][0]["text"]
    call = next(e for e in events if e["type"] == "tool_call")
    assert call["effects"] == {"files": [{"path": str(work / "notes.txt"), "operation": "write"}]}
    assert (work / "notes.txt").read_text() == "one\ntwo\n"


def test_approval_required_cancels_the_rest_of_the_response(tmp_path):
    cfg, work = setup(
        tmp_path,
        {"tool_calls": [
            {"name": "write_file", "arguments": {"operations": [
                {"mode": "overwrite", "path": "a.txt", "content": "x"}]}},
            {"name": "bash", "arguments": {"commands": [{"command": "touch b.txt"}]}}]},
        {"text": "never reached"},
        rules=[{"match": "builtin/write_file", "effect": "ask"}])
    proc, events = run(cfg, work)
    assert proc.returncode == 1
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["code"] for r in results] == ["approval_required", "cancelled"]
    assert run_end(events)["status"] == "error"
    assert run_end(events)["code"] == "approval_required"
    assert not (work / "a.txt").exists() and not (work / "b.txt").exists()
    assert not any(e["type"] == "approval_request" for e in events)


def test_max_steps_exit_3(tmp_path):
    call = {"tool_calls": [{"name": "read_file", "arguments": {"path": "x"}}]}
    cfg, work = setup(tmp_path, call, call, call, max_steps=2)
    proc, events = run(cfg, work)
    assert proc.returncode == 3
    assert run_end(events)["status"] == "max_steps"
    assert sum(e["type"] == "assistant_text" for e in events) == 2


def test_unknown_tool_and_malformed_arguments_are_results_the_model_reads(tmp_path):
    cfg, work = setup(tmp_path,
                      {"tool_calls": [{"name": "nope", "arguments": {}},
                                      {"name": "bash", "arguments": "{not json"}]},
                      {"text": "ok"})
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["code"] for r in results] == ["tool_not_exposed", "invalid_arguments"]


def test_prompt_from_stdin_and_text_output(tmp_path):
    cfg, work = setup(tmp_path, {"text": "I read you.", "tool_calls": [
        {"name": "bash", "arguments": {"commands": [{"command": "echo hi"}]}}]}, {"text": "Bye."})
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", "-",
                   input="from stdin\n")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "> from stdin\n".rstrip("\n") or lines[0].startswith("> from stdin")
    assert "I read you." in proc.stdout and "Bye." in proc.stdout
    assert any(line.startswith("· bash ") for line in lines)
    assert any(line.strip().startswith("bash: ok") for line in lines)


def test_config_error_exits_2(tmp_path):
    cfg, work = setup(tmp_path, {"text": "x"})
    data = json.loads((cfg / "raw.json").read_text())
    data["agents"]["main"]["model"] = "missing"
    (cfg / "raw.json").write_text(json.dumps(data))
    proc, _ = run(cfg, work)
    assert proc.returncode == 2 and "agents.main.model: unknown model alias" in proc.stderr


def test_bad_script_line_is_a_clear_error(tmp_path):
    cfg, work = setup(tmp_path)
    (cfg / "script.jsonl").write_text('{"text": "ok"}\n{oops\n')
    proc, _ = run(cfg, work)
    assert proc.returncode == 2
    assert "script.jsonl:2" in proc.stderr and "Traceback" not in proc.stderr


def _popen_run(cfg, work, prompt="go"):
    return subprocess.Popen(
        [sys.executable, "-m", "raw_tui.cli", "--config", str(cfg / "raw.json"), "--cwd",
         str(work), "run", prompt, "--output", "jsonl"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _read_until(proc, predicate, timeout=20):
    events = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        events.append(json.loads(line))
        if predicate(events[-1]):
            return events
    raise AssertionError(f"not seen; got {events}")


def test_sigint_during_long_bash_cancels_once_and_kills_the_group(tmp_path):
    cfg, work = setup(tmp_path, {"tool_calls": [
        {"name": "bash", "arguments": {"commands": [
            {"command": "sleep 300 & echo $! > bg.pid; sleep 300"}]}},
        {"name": "read_file", "arguments": {"path": "x"}}]},
        sandbox={"mode": "off"})  # host pids: the process tree of a direct run
    proc = _popen_run(cfg, work)
    _read_until(proc, lambda e: e["type"] == "tool_call")
    pid_file = work / "bg.pid"
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.05)
    bg = int(pid_file.read_text())
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=20)
    events = [json.loads(line) for line in out.splitlines()]
    assert proc.returncode == 130
    assert run_end(events)["status"] == "cancelled"
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["code"] for r in results] == ["cancelled", "cancelled"]
    time.sleep(0.2)
    assert not alive(bg)


def test_kill_9_mid_turn_then_continue(tmp_path):
    cfg, work = setup(tmp_path,
                      {"text": "Working on it.", "tool_calls": [
                          {"name": "bash", "arguments": {"commands": [{"command": "sleep 300"}]}}]},
                      {"text": "Resumed fine."})
    proc = _popen_run(cfg, work, "first prompt")
    seen = _read_until(proc, lambda e: e["type"] == "tool_call")
    proc.kill()
    proc.wait(timeout=10)
    listing = raw_tui("sessions", "list")
    assert listing.returncode == 0
    session_id = listing.stdout.split()[0]
    shown = raw_tui("sessions", "show", session_id)
    stored = [json.loads(line) for line in shown.stdout.splitlines()]
    assert stored[:len(seen)] == seen
    proc2, events = run(cfg, work, "second prompt", "--continue")
    assert proc2.returncode == 0, proc2.stderr
    assert events[0] == {"type": "session_start", "session_id": session_id, "agent": "main"}
    shown = raw_tui("sessions", "show", session_id, "--output", "text")
    assert "first prompt" in shown.stdout and "second prompt" in shown.stdout


def test_sessions_delete_and_unknown_id(tmp_path):
    cfg, work = setup(tmp_path, {"text": "x"})
    run(cfg, work)
    session_id = raw_tui("sessions", "list").stdout.split()[0]
    assert raw_tui("sessions", "delete", session_id).returncode == 0
    assert raw_tui("sessions", "show", session_id).returncode == 1
    assert raw_tui("sessions", "list").stdout.strip() == ""


def test_credentials_never_stored(tmp_path, isolated_home):
    cfg, work = setup(tmp_path, {"text": "x"})
    data = json.loads((cfg / "raw.json").read_text())
    data["models"]["other"] = {"method": "openai-chat-completions", "model_id": "m",
                               "api_key": "sk-TOPSECRET"}
    (cfg / "raw.json").write_text(json.dumps(data))
    proc, _ = run(cfg, work)
    assert proc.returncode == 0
    db = next((isolated_home / "state").rglob("history.sqlite3"))
    for path in db.parent.iterdir():
        assert b"sk-TOPSECRET" not in path.read_bytes()


@pytest.mark.parametrize("output", ["jsonl", "text"])
def test_a_reader_that_goes_away_stops_the_run_quietly(tmp_path, output):
    # `raw-tui run ... | head -1`: no traceback, the turn is cancelled (and saved so)
    cfg, work = setup(tmp_path, {"text": "First.", "tool_calls": [
        {"name": "bash", "arguments": {"commands": [{"command": "sleep 1; echo late"}]}},
        {"name": "bash", "arguments": {"commands": [{"command": "touch ran-on"}]}}]},
        {"text": "Never read."})
    proc = subprocess.Popen(
        [sys.executable, "-m", "raw_tui.cli", "--config", str(cfg / "raw.json"), "--cwd",
         str(work), "run", "go", "--output", output],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in iter(proc.stdout.readline, ""):
        if "bash" in line:  # the first call has started
            break
    proc.stdout.close()
    _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert proc.returncode == 130
    assert not (work / "ran-on").exists()
    listing = raw_tui("sessions", "list").stdout.split()
    events = [json.loads(line) for line in
              raw_tui("sessions", "show", listing[0]).stdout.splitlines()]
    assert run_end(events)["status"] == "cancelled"


def test_a_reader_gone_before_the_turn_starts_means_no_turn(tmp_path):
    # a SessionStart hook holds the run for a second: the reader leaves before the turn
    cfg, work = setup(tmp_path, {"tool_calls": [
        {"name": "bash", "arguments": {"commands": [{"command": "touch ran-on"}]}}]},
        hooks={"use": ["agent/slow"]})
    hook = cfg / "hooks" / "slow"
    hook.mkdir(parents=True)
    (hook / "hook.json").write_text(json.dumps({
        "protocol_version": 2, "name": "slow", "events": [{"name": "SessionStart"}],
        "command": "sleep", "args": ["1"]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "raw_tui.cli", "--config", str(cfg / "raw.json"), "--cwd",
         str(work), "run", "go", "--output", "jsonl"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert json.loads(proc.stdout.readline())["type"] == "session_start"
    proc.stdout.close()
    _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err
    assert proc.returncode == 130
    assert not (work / "ran-on").exists()
    # no turn ran: the session, with nothing in it, is not kept
    assert raw_tui("sessions", "list").stdout == ""


def test_jsonl_ends_with_run_end(tmp_path):
    # a headless run's SessionEnd hooks run after Stop and before run_end, and its last
    # turn_state (closing) too: the stream and the history end with run_end
    cfg, work = setup(tmp_path, {"text": "Done."})
    hook = cfg / "hooks" / "bye"
    hook.mkdir(parents=True)
    (hook / "hook.json").write_text(json.dumps({
        "protocol_version": 2, "name": "bye", "events": [{"name": "SessionEnd"}],
        "command": "true"}))
    data = json.loads((cfg / "raw.json").read_text())
    data["agents"]["main"]["hooks"] = {"use": ["agent/bye"]}
    (cfg / "raw.json").write_text(json.dumps(data))
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    assert [(e["type"], e.get("event") or e.get("state")) for e in events[-3:]] == [
        ("hook_event", "SessionEnd"), ("turn_state", "closing"), ("run_end", None)]
    assert events[-2]["turn_id"] == events[-1]["turn_id"]
    session_id = events[0]["session_id"]
    stored = [json.loads(line) for line in raw_tui("sessions", "show", session_id).stdout.splitlines()]
    assert stored == events

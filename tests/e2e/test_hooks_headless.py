"""Hooks in a headless `raw-tui run` (issue 4): a real subprocess, a scripted model, real hook
processes. The guard denying `rm`, the full lifecycle order and payloads from the log hook, and a
denied UserPromptSubmit keeping the prompt out of history and the model uncalled."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.headless_kit import config_with, kinds, run, run_end, stored
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import REPO, raw_tui


def receipts(events, event=None):
    return [e for e in events if e["type"] == "hook_event" and event in (None, e["event"])]


def read_log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- 1. the guard example denies rm -------------------------------------------------------

def test_repo_guard_denies_rm_in_a_headless_run_and_a_receipt_says_so(tmp_path):
    work = tmp_path / "work"
    (work / "build").mkdir(parents=True)
    (work / "build" / "keep.txt").write_text("still here")
    log = tmp_path / "hooks.jsonl"
    proc, events = run(REPO / "raw.json", work, "tidy up", env={"RAW_TUI_HOOK_LOG": str(log)})
    assert proc.returncode == 0, proc.stderr
    calls = [e for e in events if e["type"] == "tool_call"]
    assert [c["arguments"]["commands"][0]["command"] for c in calls] == ["ls", "rm -rf build"]
    # the guard ran for the rm call only, and denied it
    guard = [r for r in receipts(events) if r["id"] == "agent/guard"]
    assert [(r["event"], r["outcome"]) for r in guard] == [("PreToolUse", "denied")]
    assert guard[0]["turn_id"] == run_end(events)["turn_id"]
    assert isinstance(guard[0]["duration_ms"], int)
    results = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    denied = results[calls[1]["call_id"]]
    assert denied["isError"] is True and denied["code"] == "hook_denied"
    assert denied["content"] == [{"type": "text", "text": "Review removal commands first"}]
    assert results[calls[0]["call_id"]]["isError"] is False
    # the receipt comes before the result it explains; no approval was involved
    order = [e["type"] for e in events]
    assert order.index("hook_event", order.index("tool_call", order.index("tool_call") + 1)) \
        < len(order) - order[::-1].index("tool_result")
    assert not any(e["type"].startswith("approval") for e in events)
    assert (work / "build" / "keep.txt").read_text() == "still here"
    # a denied PreToolUse stops the hooks after it: the log hook never saw the rm call
    logged = [p for p in read_log(log) if p["event"] == "PreToolUse"]
    assert [p["tool"]["arguments"]["commands"][0]["command"] for p in logged] == ["ls"]
    # the receipt is stored with the session
    session_id = events[0]["session_id"]
    assert [e for e in stored(session_id) if e["type"] == "hook_event"] == receipts(events)
    assert run_end(events)["status"] == "completed"


def test_guard_receipt_in_text_output(tmp_path):
    cfg, work = config_with(
        tmp_path, ["agent/guard"],
        {"tool_calls": [{"name": "bash", "arguments": {"commands": [
            {"command": "printf hi"}, {"command": "rm -rf important"}]}}]},
        {"text": "ok"}, copy=("guard",))
    (work / "important").mkdir()
    proc, _ = run(cfg, work, output="text")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "Hook agent/guard PreToolUse: denied" in lines
    assert any(line.strip() == "bash: error hook_denied · Review removal commands first"
               for line in lines), lines
    assert (work / "important").is_dir()


def test_guard_reports_a_bash_failure_with_a_message(tmp_path):
    cfg, work = config_with(
        tmp_path, ["agent/guard"],
        {"tool_calls": [{"name": "bash", "arguments": {"commands": [{"command": "exit 3"}]}}]},
        {"text": "ok"}, copy=("guard",))
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    [receipt] = receipts(events)
    assert (receipt["event"], receipt["outcome"], receipt["message"]) == \
        ("PostToolUseFailure", "continued", "Bash command failed")


# -- 2. the full lifecycle, from the log hook ---------------------------------------------

PAYLOAD_KEYS = {"protocol_version", "event", "cwd", "agent_id", "session_id"}


def test_lifecycle_order_and_payload_fields(tmp_path):
    operations = [{"mode": "overwrite", "path": "notes.txt", "content": "hi\n"}]
    cfg, work = config_with(
        tmp_path, ["agent/log"],
        {"text": "Writing.", "tool_calls": [
            {"name": "write_file", "arguments": {"operations": operations}}]},
        {"text": "Done."}, copy=("log",))
    log = tmp_path / "hooks.jsonl"
    proc, events = run(cfg, work, "please write notes", env={"RAW_TUI_HOOK_LOG": str(log)})
    assert proc.returncode == 0, proc.stderr
    payloads = read_log(log)
    assert [p["event"] for p in payloads] == [
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    session_id = events[0]["session_id"]
    turn_id = run_end(events)["turn_id"]
    for p in payloads:
        assert p["protocol_version"] == 2
        assert p["cwd"] == str(work.resolve())
        assert p["agent_id"] == "main"
        assert p["session_id"] == session_id
    start, prompt, pre, post, stop, end = payloads
    assert start.keys() == PAYLOAD_KEYS | {"source"} and start["source"] == "create"
    assert end.keys() == PAYLOAD_KEYS
    assert prompt.keys() == PAYLOAD_KEYS | {"turn_id", "input"}
    assert prompt["input"] == "please write notes"
    assert stop.keys() == PAYLOAD_KEYS | {"turn_id", "run"}
    assert stop["run"] == {"status": "completed"}
    for p in (prompt, pre, post, stop):
        assert p["turn_id"] == turn_id
    effects = {"files": [{"path": str(work / "notes.txt"), "operation": "write"}]}
    assert pre.keys() == PAYLOAD_KEYS | {"turn_id", "tool"}
    assert pre["tool"] == {"identity": "builtin/write_file", "name": "write_file",
                           "source": "model", "arguments": {"operations": operations},
                           "effects": effects}
    result = next(e for e in events if e["type"] == "tool_result")
    assert post["tool"] == {**pre["tool"], "result": {"isError": False,
                                                      "content": result["content"]}}
    # one receipt per hook run, in the same order, each stored
    assert [r["event"] for r in receipts(events)] == [p["event"] for p in payloads]
    assert all(r["outcome"] == "continued" for r in receipts(events))
    assert [e for e in stored(session_id) if e["type"] == "hook_event"] == receipts(events)
    # the receipts sit where their events happened in the stream
    assert kinds(events) == [
        "session_start", "hook_event", "hook_event", "user_message", "assistant_text",
        "tool_call", "hook_event", "hook_event", "tool_result", "file_changes",
        "assistant_text", "hook_event",
        "hook_event", "run_end"]  # a headless run's SessionEnd comes before run_end (docs/command-line.md)


def test_resume_failure_and_stop_with_a_code(tmp_path):
    cfg, work = config_with(
        tmp_path, ["agent/log"],
        {"text": "first"},
        {"tool_calls": [{"name": "bash", "arguments": {"commands": [{"command": "exit 3"}]}}]},
        copy=("log",), max_steps=1)
    log = tmp_path / "hooks.jsonl"
    first, events = run(cfg, work, "one", env={"RAW_TUI_HOOK_LOG": str(log)})
    assert first.returncode == 0, first.stderr
    second, events = run(cfg, work, "two", "--continue", env={"RAW_TUI_HOOK_LOG": str(log)})
    assert second.returncode == 3, second.stderr
    payloads = read_log(log)
    assert [p["event"] for p in payloads] == [
        "SessionStart", "UserPromptSubmit", "Stop", "SessionEnd",
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUseFailure", "Stop",
        "SessionEnd"]
    assert [p["source"] for p in payloads if p["event"] == "SessionStart"] == ["create", "resume"]
    assert len({p["session_id"] for p in payloads}) == 1
    failure = payloads[7]["tool"]
    assert "effects" not in failure  # bash describes no effects
    assert failure["result"]["isError"] is True and failure["result"]["code"]
    assert failure["result"]["content"] == next(
        e["content"] for e in events if e["type"] == "tool_result")
    assert payloads[8]["run"] == {"status": "max_steps", "code": "max_steps",
                                  "message": "stopped after 1 model requests"}


# -- 5. a denied UserPromptSubmit -----------------------------------------------------------

GATEKEEPER = """
request = json.load(sys.stdin)
if "xyzzy" in request["input"]:
    print(json.dumps({"decision": "deny", "reason": "that topic is off limits"}))
"""


def test_denied_prompt_is_not_stored_and_the_model_is_not_called(tmp_path, isolated_home):
    cfg, work = config_with(tmp_path, ["agent/gatekeeper"], {"text": "first scripted line"},
                            {"text": "second scripted line"})
    write_hook(cfg.parent, "gatekeeper", GATEKEEPER, events=["UserPromptSubmit"])
    proc, events = run(cfg, work, "tell me about xyzzy")
    assert proc.returncode == 1, proc.stderr
    assert kinds(events) == ["session_start", "hook_event", "run_end"]
    [receipt] = receipts(events)
    assert (receipt["id"], receipt["event"], receipt["outcome"]) == \
        ("agent/gatekeeper", "UserPromptSubmit", "denied")
    end = run_end(events)
    assert (end["status"], end["code"], end["message"]) == \
        ("error", "hook_denied", "that topic is off limits")
    session_id = events[0]["session_id"]
    assert not any("xyzzy" in json.dumps(e) for e in stored(session_id))
    db = next((isolated_home / "state").rglob("history.sqlite3"))
    for path in db.parent.iterdir():
        assert b"xyzzy" not in path.read_bytes(), path
    # the next turn gets the script's first line: the denied turn did not consume it
    proc, events = run(cfg, work, "hello", "--continue")
    assert proc.returncode == 0, proc.stderr
    assert [e["text"] for e in events if e["type"] == "assistant_text"] == ["first scripted line"]
    transcript = raw_tui("sessions", "show", session_id, "--output", "text").stdout
    assert "> hello" in transcript and "xyzzy" not in transcript


def test_denied_prompt_in_text_output_names_the_code(tmp_path):
    cfg, work = config_with(tmp_path, ["agent/gatekeeper"], {"text": "never"})
    write_hook(cfg.parent, "gatekeeper", GATEKEEPER, events=["UserPromptSubmit"])
    proc, _ = run(cfg, work, "xyzzy", output="text")
    assert proc.returncode == 1
    assert "Hook agent/gatekeeper UserPromptSubmit: denied" in proc.stdout
    assert "never" not in proc.stdout
    assert "hook_denied: that topic is off limits" in proc.stderr


def test_failing_prompt_hook_blocks_with_hook_error(tmp_path):
    cfg, work = config_with(tmp_path, ["agent/broken"], {"text": "never"})
    write_hook(cfg.parent, "broken", "print('not json')", events=["UserPromptSubmit"])
    proc, events = run(cfg, work)
    assert proc.returncode == 1
    end = run_end(events)
    assert (end["code"], end["message"]) == ("hook_error", "hook agent/broken failed: invalid_output")
    assert [(r["outcome"], r["code"]) for r in receipts(events)] == [("error", "invalid_output")]
    assert not any(e["type"] in ("user_message", "assistant_text") for e in events)

"""The built-in tools through the real command line: a headless run has no surface, so
ask_user ends at once with interaction_unavailable (exit 0); todo reaches revision N with a
receipt per update."""

from __future__ import annotations

import json

from tests.config_kit import raw_tui


def write(tmp_path, lines):
    (tmp_path / "script.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    (tmp_path / "raw.json").write_text(json.dumps({
        "default_agent": "main",
        "models": {"m": {"method": "scripted", "script": "script.jsonl"}},
        "agents": {"main": {"model": "m",
                            "tools": {"use": ["builtin/ask_user", "builtin/todo"]}}}}))


def events(result):
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_ask_user_headless_is_unavailable_at_once(tmp_path):
    write(tmp_path, [
        {"tool_calls": [{"name": "ask_user", "arguments": {"questions": [
            {"id": "q", "text": "Proceed?", "options": [{"id": "y", "label": "Yes"}]}],
            "timeout_ms": 86400000}}]},
        {"text": "ok"}])
    result = raw_tui("--config", str(tmp_path / "raw.json"), "run", "go", "--output", "jsonl",
                     cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    (tool_result,) = [e for e in events(result) if e["type"] == "tool_result"]
    assert tool_result["isError"] and tool_result["code"] == "interaction_unavailable"
    assert not [e for e in events(result) if e["type"] == "interaction_request"]


def test_todo_reaches_revision_n(tmp_path):
    calls = []
    for n in range(3):
        todos = [{"id": f"s{k}", "content": f"step {k}", "status": "done" if k < n else "pending"}
                 for k in range(3)]
        calls.append({"tool_calls": [{"name": "todo", "arguments": {"todos": todos}}]})
    write(tmp_path, calls + [{"text": "all done"}])
    result = raw_tui("--config", str(tmp_path / "raw.json"), "run", "go", "--output", "jsonl",
                     cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    stream = events(result)
    receipts = [e for e in stream if e["type"] == "panel_receipt"]
    assert [(r["panel"], r["owner"], r["revision"], r["summary"]) for r in receipts] == [
        ("todo", "builtin/todo", 1, "0/3 done"), ("todo", "builtin/todo", 2, "1/3 done"),
        ("todo", "builtin/todo", 3, "2/3 done")]
    texts = [e["content"][0]["text"] for e in stream if e["type"] == "tool_result"]
    assert texts == ["panel todo updated (revision 1): 0/3 done",
                     "panel todo updated (revision 2): 1/3 done",
                     "panel todo updated (revision 3): 2/3 done"]
    states = [e for e in stream if e["type"] == "panel_state"]
    assert states[-1]["panel"] == "builtin/todo#todo" and states[-1]["revision"] == 3

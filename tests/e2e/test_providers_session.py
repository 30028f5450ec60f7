"""`raw-tui run` (a subprocess) against the local protocol servers, for both HTTP methods:
fragmented tool calls, what the server is sent, errors, stalls, drops, malformed arguments,
and the history kept up to a failure."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import raw_tui as raw_tui_pkg

from raw_tui.session.prompt import DEFAULT_SYSTEM_PROMPT
from tests.e2e.headless_kit import run_end, stored
from tests.e2e.provider_kit import Wire, server, wire
from tests.config_kit import raw_tui, write_config
from tests.servers.http_server import ProtocolServer

__all__ = ["server", "wire"]  # the fixtures

BUILTIN = Path(raw_tui_pkg.__file__).parent / "tools" / "builtin"
TOOLS = ["builtin/read_file", "builtin/write_file", "builtin/bash", "builtin/todo"]
DENY_TODO = [{"match": "builtin/todo", "effect": "deny"}]


def setup(tmp_path, wire: Wire, server: ProtocolServer, *, timeout_ms: int = 20000,
          **model_keys: Any):
    cfg = tmp_path / "cfg"
    model = {"method": wire.method, "model_id": "test-model", "base_url": server.url,
             "request_timeout_ms": timeout_ms, **model_keys}
    if wire.method == "openai-chat-completions":
        model["base_url"] = server.url + "/v1"
    write_config(cfg, {"tools": {"use": TOOLS, "rules": DENY_TODO}}, models={"m": model})
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return cfg, work


def run(cfg, work, prompt="go", *extra):
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", prompt,
                   "--output", "jsonl", *extra)
    return proc, [json.loads(line) for line in proc.stdout.splitlines()]


def kinds(events):
    return [e["type"] for e in events
            if e["type"] not in ("turn_state", "assistant_delta", "usage", "tool_output")]


def one_clear_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


WRITE = json.dumps({"operations": [{"mode": "overwrite", "path": "notes.txt",
                                    "content": "one\ntwo\n"}]})
READ = json.dumps({"path": "notes.txt"})
BASH = json.dumps({"commands": [{"command": "wc -l notes.txt"}]})


def test_multi_tool_task(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server)
    server.enqueue(wire.calls([("call_w", "write_file", WRITE), ("call_r", "read_file", READ)],
                              text="Writing."),
                   wire.calls([("call_b", "bash", BASH)]),
                   wire.text("All done."))
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    assert kinds(events) == [
        "session_start", "user_message", "assistant_text",
        "tool_call", "tool_result", "file_changes", "tool_call", "tool_result",
        "assistant_text", "tool_call", "tool_result", "assistant_text", "run_end"]
    calls = [e for e in events if e["type"] == "tool_call"]
    assert [(c["call_id"], c["name"]) for c in calls] == [
        ("call_w", "write_file"), ("call_r", "read_file"), ("call_b", "bash")]
    assert calls[0]["arguments"] == json.loads(WRITE)  # reassembled from 3-byte fragments
    results = [e for e in events if e["type"] == "tool_result"]
    assert not any(r["isError"] for r in results), results
    assert "2 notes.txt" in results[2]["content"][0]["text"]
    assert (work / "notes.txt").read_text() == "one\ntwo\n"
    texts = [e["text"] for e in events if e["type"] == "assistant_text"]
    assert texts == ["Writing.", "", "All done."]

    first, second, third = (r.body for r in server.requests)
    assert wire.system(first) == DEFAULT_SYSTEM_PROMPT
    assert [t["name"] for t in wire.tools(first)] == ["read_file", "write_file", "bash"]
    for tool in wire.tools(first):  # exactly the manifest's definition, nothing more
        manifest = json.loads((BUILTIN / tool["name"] / "tool.json").read_text())
        assert tool == {k: manifest[k] for k in ("name", "description", "input_schema")}
    assert wire.results(first) == []
    assert [i for i, _ in wire.results(second)] == ["call_w", "call_r"]
    assert wire.results(second)[1][1] == "1\tone\n2\ttwo"
    assert [i for i, _ in wire.results(third)] == ["call_w", "call_r", "call_b"]
    assert "2 notes.txt" in wire.results(third)[2][1]
    assert wire.user_texts(first) == ["go"]


def test_server_error_is_one_line_and_history_is_kept(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server)
    server.enqueue(wire.calls([("call_r", "read_file", READ)]),
                   wire.error(500, "upstream exploded"))
    proc, events = run(cfg, work)
    assert proc.returncode == 1
    line = one_clear_line(proc.stderr)
    assert line == (f"raw-tui: model_error: {wire.method}: HTTP 500: upstream exploded")
    end = run_end(events)
    assert (end["status"], end["code"]) == ("error", "model_error")
    session_id = events[0]["session_id"]
    assert kinds(stored(session_id)) == kinds(events) == [
        "session_start", "user_message", "assistant_text", "tool_call", "tool_result",
        "run_end"]

    # --continue: the next request holds the turn that failed, its call and its result
    server.enqueue(wire.text("Recovered."))
    proc2, events2 = run(cfg, work, "try again", "--continue")
    assert proc2.returncode == 0, proc2.stderr
    assert events2[0]["session_id"] == session_id
    body = server.last.body
    assert wire.user_texts(body) == ["go", "try again"]
    assert [i for i, _ in wire.results(body)] == ["call_r"]


def test_stalled_stream_times_out(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server, timeout_ms=400)
    reply = wire.text("This stream will stall.")
    reply.stall_after = 3
    server.enqueue(reply)
    started = time.monotonic()
    proc, events = run(cfg, work)
    assert time.monotonic() - started < 15
    assert proc.returncode == 1
    assert "timed out after 400 ms" in one_clear_line(proc.stderr)
    assert run_end(events)["code"] == "model_error"
    assert server.last.client_gone.wait(5)


def test_dropped_connection(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server)
    reply = wire.text("This stream will be cut off.")
    reply.drop_after = 3
    server.enqueue(reply)
    proc, events = run(cfg, work)
    assert proc.returncode == 1
    assert one_clear_line(proc.stderr).startswith(
        f"raw-tui: model_error: {wire.method}: connection dropped mid-stream from 127.0.0.1:")
    assert run_end(events)["code"] == "model_error"
    assert kinds(events)[-2:] == ["user_message", "run_end"]


def test_malformed_arguments_become_a_result_the_model_reads(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server)
    server.enqueue(wire.calls([("call_x", "read_file", '{"path": "notes.txt"'),
                               ("call_y", "nope", "{}")]),
                   wire.text("Let me fix that."))
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    results = [e for e in events if e["type"] == "tool_result"]
    assert [r["code"] for r in results] == ["invalid_arguments", "tool_not_exposed"]
    call = next(e for e in events if e["type"] == "tool_call")
    assert call["arguments"] == '{"path": "notes.txt"'
    seen = dict(wire.results(server.last.body))
    assert seen["call_x"] == results[0]["content"][0]["text"]
    assert seen["call_x"].startswith("invalid arguments")
    assert seen["call_y"] == "tool unavailable: nope"


def test_a_reply_cut_by_max_tokens_is_reported_as_truncated(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server, context_window_tokens=8192)
    server.enqueue(wire.text("The answer is cut he", truncated=True, usage=(40, 7)))
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    end = run_end(events)
    assert (end["status"], end["code"]) == ("completed", "truncated")
    assert "max_tokens" in end["message"]
    notices = [e for e in events if e["type"] == "notice"]
    assert [(n["level"], n["message"]) for n in notices] == [("warning", end["message"])]
    usage = [e for e in events if e["type"] == "usage"]
    assert [(u["input_tokens"], u["output_tokens"], u["context_window_tokens"])
            for u in usage] == [(40, 7, 8192)]

    server.enqueue(wire.text("The answer is cut he", truncated=True))
    text = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", "again")
    assert text.returncode == 0
    assert "[warning] the model's reply was cut at its output limit (max_tokens)" in text.stdout


def test_a_complete_reply_is_not_truncated_and_reports_usage(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server)
    server.enqueue(wire.text("Fine.", usage=(30, 2)))
    proc, events = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    assert "code" not in run_end(events)
    assert not [e for e in events if e["type"] == "notice"]
    assert [(u["input_tokens"], u["output_tokens"]) for u in events
            if u["type"] == "usage"] == [(30, 2)]
    assert "context_window_tokens" not in [u for u in events if u["type"] == "usage"][0]


@pytest.mark.parametrize("choice", ["auto", "required", "none", None])
def test_tool_choice_from_the_model_entry_is_sent(tmp_path, wire, server, choice):
    keys = {} if choice is None else {"tool_choice": choice}
    cfg, work = setup(tmp_path, wire, server, **keys)
    server.enqueue(wire.text("ok"))
    proc, _ = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    sent = server.requests[0].body.get("tool_choice")
    if choice is None:
        assert sent is None  # not sent: the server's default
    elif wire.method == "anthropic-messages":
        assert sent == {"type": {"auto": "auto", "required": "any", "none": "none"}[choice]}
    else:
        assert sent == choice


def test_an_unknown_tool_choice_is_a_config_error(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server, tool_choice="always")
    proc, _ = run(cfg, work)
    assert proc.returncode == 2
    assert "models.m.tool_choice" in proc.stderr, proc.stderr

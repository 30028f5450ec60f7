"""Published MCP servers (npm: server-everything, server-memory; PyPI: mcp-server-time)
driven through `raw-tui call` and a scripted headless run, with an `ask` rule on one tool, a
`deny` on another, and a PreToolUse hook whose `match` is `mcp/*`."""

from __future__ import annotations

import json

from raw_tui.mcp.config import alias
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import raw_tui

from .mcp_kit import mcp_config
from .published import npm_servers, time_server  # noqa: F401 — a fixture

USE = ["mcp/everything/echo", "mcp/everything/get-sum", "mcp/everything/get-env",
       "mcp/everything/trigger-long-running-operation", "mcp/memory/create_entities",
       "mcp/memory/read_graph", "mcp/time/get_current_time"]
RULES = [{"match": "mcp/everything/get-sum", "effect": "ask"},
         {"match": "mcp/everything/get-env", "effect": "deny"}]
HOOK = '''
payload = json.load(sys.stdin)
with open(os.environ["RAW_TEST_HOOK_LOG"], "a") as f:
    f.write(payload["tool"]["identity"] + "\\n")
'''


def setup(tmp_path, npm_servers, script=None):
    servers = {**npm_servers, "time": time_server()}
    path = mcp_config(tmp_path, servers, USE, rules=RULES, hooks=["agent/seen"], script=script)
    write_hook(path.parent, "seen", HOOK, events=[{"name": "PreToolUse", "match": "mcp/*"}])
    env = {"RAW_TEST_HOOK_LOG": str(tmp_path / "hook.log"),
           "RAW_TEST_MEMORY_FILE": str(tmp_path / "memory.jsonl")}
    return path, env


def call(path, env, tmp_path, tool, args, *extra):
    proc = raw_tui("--config", str(path), "call", tool, "--args", json.dumps(args), *extra,
                   cwd=tmp_path, env=env, timeout=120)
    return proc, json.loads(proc.stdout)


def test_published_servers_through_raw_tui_call(tmp_path, npm_servers):
    path, env = setup(tmp_path, npm_servers)
    proc, report = call(path, env, tmp_path, "mcp/everything/echo", {"message": "hello"})
    assert proc.returncode == 0, proc.stderr
    assert "hello" in report["result"]["content"][0]["text"]
    assert report["receipts"][0]["id"] == "agent/seen"
    # ask: without an approver it stops; --approve yes runs it
    _, report = call(path, env, tmp_path, "mcp/everything/get-sum", {"a": 2, "b": 3})
    assert (report["code"], report["rule"]) == ("approval_required", "ask")
    proc, report = call(path, env, tmp_path, "mcp/everything/get-sum", {"a": 2, "b": 3},
                        "--approve", "yes")
    assert proc.returncode == 0 and "5" in report["result"]["content"][0]["text"]
    _, report = call(path, env, tmp_path, "mcp/everything/get-sum", {"a": 2, "b": 3},
                     "--approve", "no")
    assert report["code"] == "approval_denied"
    # deny: stopped at exposure, the server never asked, the hook never ran for it
    proc, report = call(path, env, tmp_path, "mcp/everything/get-env", {})
    assert (proc.returncode, report["stage"], report["code"]) == (1, "exposure", "tool_denied")
    # schema from the server: bad arguments never reach it
    _, report = call(path, env, tmp_path, "mcp/everything/get-sum", {"a": "two", "b": 3})
    assert report["code"] == "invalid_arguments"
    proc, report = call(path, env, tmp_path, alias("time", "get_current_time"),
                        {"timezone": "UTC"})
    assert proc.returncode == 0, proc.stderr
    assert "UTC" in json.dumps(report["result"])
    seen = (tmp_path / "hook.log").read_text().split()
    assert seen == ["mcp/everything/echo", "mcp/everything/get-sum", "mcp/everything/get-sum",
                    "mcp/everything/get-sum", "mcp/time/get_current_time"]


def test_published_servers_in_a_scripted_headless_run(tmp_path, npm_servers):
    entity = {"name": "raw-tui", "entityType": "project", "observations": ["gates MCP tools"]}
    script = [
        {"tool_calls": [{"name": alias("memory", "create_entities"),
                         "arguments": {"entities": [entity]}, "id": "m1"}]},
        {"tool_calls": [{"name": alias("memory", "read_graph"), "arguments": {}, "id": "m2"},
                        {"name": alias("everything", "trigger-long-running-operation"),
                         "arguments": {"duration": 1, "steps": 4}, "id": "p1"},
                        {"name": alias("everything", "get-env"), "arguments": {}, "id": "d1"},
                        {"name": alias("everything", "get-sum"), "arguments": {"a": 1, "b": 1},
                         "id": "s1"}]},
    ]
    path, env = setup(tmp_path, npm_servers, script=script)
    proc = raw_tui("--config", str(path), "run", "go", "--output", "jsonl", cwd=tmp_path,
                   env=env, timeout=180)
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    results = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    assert results["m1"].get("code") is None, results["m1"]
    assert "gates MCP tools" in json.dumps(results["m2"]["content"])
    assert results["p1"].get("code") is None, results["p1"]
    assert any(e["type"] == "tool_progress" and e["call_id"] == "p1" for e in events)
    assert results["d1"]["code"] == "tool_denied"  # hidden from the model, refused anyway
    assert results["s1"]["code"] == "approval_required"
    run_end = next(e for e in events if e["type"] == "run_end")
    assert run_end["code"] == "approval_required" and proc.returncode == 1
    calls = [e["identity"] for e in events if e["type"] == "tool_call"]
    assert calls[:2] == ["mcp/memory/create_entities", "mcp/memory/read_graph"]
    assert (tmp_path / "hook.log").read_text().split()[:2] == calls[:2]

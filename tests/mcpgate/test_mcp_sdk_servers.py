"""MCP tools from servers built with the SDK: an `MCPServer` over stdio and the same server
over streamable HTTP on 127.0.0.1, driven through `raw-tui call` and a headless run."""

from __future__ import annotations

import json
import sys

from raw_tui.mcp.config import alias
from tests.config_kit import raw_tui

from .mcp_kit import SDK_FIXTURE, http_server, mcp_config

__all__ = ["http_server"]  # the fixture


def sdk_stdio() -> dict:
    return {"transport": "stdio", "command": sys.executable, "args": [SDK_FIXTURE]}


def test_call_an_mcpserver_tool_over_stdio(tmp_path):
    path = mcp_config(tmp_path, {"sdk": sdk_stdio()}, ["mcp/sdk/add", "mcp/sdk/panel"])
    proc = raw_tui("--config", str(path), "call", "mcp/sdk/add", "--args", '{"a": 2, "b": 40}',
                   cwd=tmp_path)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert report["result"]["content"] == [{"type": "text", "text": "42"}]
    # validated against the server's schema before any call
    proc = raw_tui("--config", str(path), "call", alias("sdk", "add"), "--args", '{"a": "x"}',
                   cwd=tmp_path)
    report = json.loads(proc.stdout)
    assert (report["stage"], report["code"]) == ("validation", "invalid_arguments")


def test_streamable_http_server_through_call_and_a_headless_run(tmp_path, http_server):
    server = {"transport": "streamable-http", "url": http_server,
              "headers": {"X-Test": "${RAW_TEST_HEADER}"}}
    script = [{"tool_calls": [{"name": alias("web", "shout"), "arguments": {"text": "hi"}}]},
              {"tool_calls": [{"name": alias("web", "panel"), "arguments": {"title": "Board"}}]},
              {"text": "done"}]
    path = mcp_config(tmp_path, {"web": server}, ["mcp/web/shout", "mcp/web/panel"],
                      script=script)
    env = {"RAW_TEST_HEADER": "h-secret"}
    proc = raw_tui("--config", str(path), "call", "mcp/web/shout", "--args", '{"text": "abc"}',
                   cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["content"][0]["text"] == "ABC"
    proc = raw_tui("--config", str(path), "run", "go", "--output", "jsonl", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    results = [e for e in events if e["type"] == "tool_result"]
    assert results[0]["content"] == [{"type": "text", "text": "HI"}]
    receipt = next(e for e in events if e["type"] == "panel_receipt")
    assert (receipt["owner"], receipt["panel"], receipt["title"]) == ("mcp/web/panel", "board",
                                                                      "Board")
    assert "h-secret" not in proc.stdout + proc.stderr


def test_sessions_show_has_the_mcp_calls(tmp_path):
    from .mcp_kit import call_line, fixture_server

    script = [call_line("fx", "echo", {"value": "stored"}), {"text": "ok"}]
    path = mcp_config(tmp_path, {"fx": fixture_server()}, ["mcp/fx/echo"], script=script)
    assert raw_tui("--config", str(path), "run", "go", cwd=tmp_path).returncode == 0
    session_id = raw_tui("sessions", "list", cwd=tmp_path).stdout.split()[0]
    shown = [json.loads(line) for line in
             raw_tui("sessions", "show", session_id, cwd=tmp_path).stdout.splitlines()]
    call = next(e for e in shown if e["type"] == "tool_call")
    result = next(e for e in shown if e["type"] == "tool_result")
    assert (call["identity"], call["name"]) == ("mcp/fx/echo", alias("fx", "echo"))
    assert result["content"] == [{"type": "text", "text": "fx:echo:stored"}]

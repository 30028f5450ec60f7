"""An ACP client's `mcpServers` (docs/acp.md, docs/mcp.md) over the SDK's memory
transport, with real MCP servers: the hand-written stdio fixture and the SDK's streamable-HTTP
one. Hidden until the agent selects a tool; then through the whole gate; ended with the
session; a server that cannot start is a warning and the session goes on."""

from __future__ import annotations

import asyncio
import sys
import time

import acp
import pytest
from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio

from raw_tui.config import load_config
from raw_tui.mcp.config import alias
from tests.acp_agent.acp_kit import RecordingClient, client_config, error_of, rig
from tests.mcpgate.mcp_kit import FIXTURE, alive, call_line, http_server, mcp_config

__all__ = ["http_server"]  # the fixture

SECRET = "client-secret-4f1c9e"


def stdio_server(name: str, **env: str) -> McpServerStdio:
    return McpServerStdio(name=name, command=sys.executable, args=[FIXTURE],
                          env=[EnvVariable(name=k, value=v) for k, v in env.items()])


async def new_session(r, servers) -> str:
    await r.conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
    return (await r.conn.new_session(cwd=str(r.work), mcp_servers=servers)).session_id


def exposed(model) -> set[str]:
    return {tool.name for tool in model.requests[0].tools}


async def wait_dead(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return not alive(pid)


async def test_a_client_stdio_server_is_hidden_until_selected_then_gated_and_ended(tmp_path):
    picked, other = tmp_path / "picked.pid", tmp_path / "other.pid"
    config = client_config(tmp_path, ["builtin/read_file", "mcp/client/echo"],
                           rules=[{"match": "mcp/client/echo", "effect": "ask"}])
    client = RecordingClient(permission=lambda call: "allow")
    lines = [call_line("client", "echo", {"value": "env:TOKEN"}), {"text": "done"}]
    async with rig(tmp_path, lines, client=client, config=config) as r:
        sid = await new_session(r, [
            stdio_server("client", MCP_PID_FILE=str(picked), MCP_LABEL="cl", TOKEN=SECRET),
            stdio_server("other", MCP_PID_FILE=str(other))])
        reply = await r.prompt(sid, "echo the token")
        assert reply.stop_reason == "end_turn"
        # only the selected tool reaches the model; the unselected server never started
        assert exposed(r.models[0]) == {"read_file", alias("client", "echo")}
        assert not other.exists()
        pid = int(picked.read_text())
        assert alive(pid)
        # through the gate: the ask rule asked the client
        [request] = client.permissions
        assert request["tool_call"].title == alias("client", "echo")
        assert request["tool_call"].field_meta["raw"]["identity"] == "mcp/client/echo"
        [done] = [u for u in client.of("tool_call_update") if u.status == "completed"]
        # the server got the client's env value as given; the redactor hides it everywhere
        text = str(done.raw_output)
        assert "[redacted]" in text and SECRET not in text
        assert SECRET not in str(r.models[0].requests[-1].messages)
        await r.agent._close(r.agent.bridges[sid])
        assert await wait_dead(pid), "the client's server outlived its session"


async def test_a_client_server_that_cannot_start_is_a_warning_and_the_session_goes_on(tmp_path):
    config = client_config(tmp_path, ["builtin/read_file", "mcp/broken/echo"])
    async with rig(tmp_path, [{"text": "still here"}], config=config) as r:
        sid = await new_session(r, [stdio_server("broken", MCP_MODE="crash")])
        reply = await r.prompt(sid, "hi")
        assert reply.stop_reason == "end_turn"
        assert r.client.text() == "still here"
        assert exposed(r.models[0]) == {"read_file"}
        thought = r.client.text("agent_thought_chunk")
        assert thought.startswith("Warning: ") and "broken" in thought
        assert "skipped" in thought


async def test_a_selected_server_no_client_supplies_is_skipped_with_a_warning(tmp_path):
    config = client_config(tmp_path, ["builtin/read_file", "mcp/absent/echo"])
    async with rig(tmp_path, [{"text": "ok"}], config=config) as r:
        sid = await new_session(r, [])
        assert (await r.prompt(sid, "hi")).stop_reason == "end_turn"
        assert exposed(r.models[0]) == {"read_file"}
        assert "absent" in r.client.text("agent_thought_chunk")


async def test_a_client_server_named_like_a_configured_one_is_invalid_params(tmp_path):
    configured = {"transport": "stdio", "command": sys.executable, "args": [FIXTURE]}
    config = client_config(tmp_path, ["builtin/read_file"], servers={"search": configured})
    async with rig(tmp_path, config=config) as r:
        await r.conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        err = await error_of(r.conn.new_session(cwd=str(r.work),
                                                mcp_servers=[stdio_server("search")]))
        assert (err.code, err.message) == (
            -32602, "mcpServers: duplicate MCP server: search")
        assert r.agent.store.list(None) == []


def test_without_acp_a_selected_server_missing_from_the_config_is_still_an_error(tmp_path):
    from raw_tui.protocol.errors import ConfigError

    path = mcp_config(tmp_path, {}, ["mcp/client/echo"])
    with pytest.raises(ConfigError, match="no MCP server 'client' in mcp.servers"):
        load_config(str(path), cwd=tmp_path)


async def test_a_client_http_server_is_selected_and_called_through_the_gate(tmp_path,
                                                                            http_server):
    config = client_config(tmp_path, ["mcp/web/add"],
                           rules=[{"match": "mcp/web/*", "effect": "ask"}])
    client = RecordingClient(permission=lambda call: "allow")
    lines = [call_line("web", "add", {"a": 2, "b": 40}), {"text": "done"}]
    server = HttpMcpServer(type="http", name="web", url=http_server,
                           headers=[HttpHeader(name="X-Api-Key", value=SECRET)])
    async with rig(tmp_path, lines, client=client, config=config) as r:
        sid = await new_session(r, [server])
        assert (await r.prompt(sid, "add")).stop_reason == "end_turn"
        assert exposed(r.models[0]) == {alias("web", "add")}  # not shout, echo, panel
        assert len(client.permissions) == 1
        [done] = [u for u in client.of("tool_call_update") if u.status == "completed"]
        assert done.raw_output["content"] == [{"type": "text", "text": "42"}]
        # the client's header value is a secret from now on
        assert r.agent.bridges[sid].session.redactor.text(SECRET) == "[redacted]"


async def test_resume_replaces_the_client_servers_with_the_ones_it_sends(tmp_path):
    first, second = tmp_path / "first.pid", tmp_path / "second.pid"
    config = client_config(tmp_path, ["mcp/client/echo"])
    # a resumed scripted model goes on where the session left it
    lines = [call_line("client", "echo", {"value": "x"}), {"text": "done"},
             call_line("client", "echo", {"value": "x"}, "c2"), {"text": "done"}]
    async with rig(tmp_path, lines, config=config) as r:
        sid = await new_session(r, [stdio_server("client", MCP_PID_FILE=str(first))])
        await r.prompt(sid, "one")
        old = int(first.read_text())
        await r.conn.resume_session(session_id=sid, cwd=str(r.work),
                                    mcp_servers=[stdio_server("client", MCP_LABEL="two",
                                                              MCP_PID_FILE=str(second))])
        assert await wait_dead(old)
        await r.prompt(sid, "two")
        assert alive(int(second.read_text()))
        outputs = [u.raw_output for u in r.client.of("tool_call_update")
                   if u.status == "completed"]
        assert [o["content"][0]["text"] for o in outputs] == ["fx:echo:x", "two:echo:x"]

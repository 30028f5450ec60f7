"""The three kinds of tool — a tool folder's (a builtin too), an MCP server's, an ACP client's
— implement one declared interface, `raw_tui.tools.ports.Tool`, and the HTTP and scripted
models the provider's (`raw_tui.models.base.ModelProvider`): the engine reads their members,
it does not guess them."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest

from raw_tui.acp.client_tools import register
from raw_tui.config import load_config
from raw_tui.mcp.tool import McpTool
from raw_tui.models.base import ModelProvider, ModelSpec, make_provider
from raw_tui.tools.ports import Tool
from raw_tui.tools.summary import generic

from tests.config_kit import write_config, write_tool

MEMBERS = [name for name, _ in inspect.getmembers(Tool) if not name.startswith("_")] + \
    list(Tool.__annotations__)


def agent(tmp_path):
    cfg = tmp_path / "cfg"
    write_tool(cfg, "echo", "def handler(args, ctx):\n    return 'ok'\n")
    write_config(cfg, {"tools": {"use": ["builtin/read_file", "agent/echo"]}})
    return load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()


def client_tool(tmp_path):
    session = SimpleNamespace(agent=agent(tmp_path))
    register(session, {"name": "pick", "inputSchema": {"type": "object"}}, None)
    return session.agent.tools.find("acp:pick")


def tools_of_every_kind(tmp_path):
    folder = agent(tmp_path).tools
    pending = McpTool.pending_from("mcp/files/read", [])
    bound = pending.bound(description="reads", input_schema={"type": "object"},
                          validator=None, connection=SimpleNamespace(dead=False))
    return {"builtin": folder.find("builtin/read_file"), "folder": folder.find("agent/echo"),
            "acp": client_tool(tmp_path), "mcp pending": pending, "mcp": bound}


def test_every_kind_of_tool_has_every_member_of_the_protocol(tmp_path):
    for kind, tool in tools_of_every_kind(tmp_path).items():
        missing = [m for m in MEMBERS if not hasattr(tool, m)]
        assert not missing, (kind, missing)
        assert isinstance(tool, Tool), kind


def test_what_the_engine_reads_of_each_kind(tmp_path):
    tools = tools_of_every_kind(tmp_path)
    assert [tools[k].is_mcp for k in tools] == [False, False, False, True, True]
    assert [tools[k].available for k in tools] == [True, True, True, False, True]
    # nothing to import: an MCP tool has no module, an ACP client's runs on the client
    assert tools["mcp"].loaded and tools["mcp pending"].loaded and tools["acp"].loaded
    assert tools["mcp"].module() is None and tools["acp"].module() is None
    assert not tools["folder"].loaded and tools["folder"].module().handler
    assert tools["folder"].loaded
    assert generic(tools["mcp"], tools["mcp"].name, {}) == "read · files"
    assert generic(tools["builtin"], "read_file", {"path": "a"}) == "read_file a"


@pytest.mark.parametrize("method", ["scripted", "openai-chat-completions", "anthropic-messages"])
def test_every_provider_takes_a_resumed_sessions_requests(method):
    spec = ModelSpec(method=method, model_id="m", api_key="k", script=[{"text": "one"}])
    provider = make_provider(spec)
    assert isinstance(provider, ModelProvider)
    provider.replay(["hi"])  # the scripted model stands after its first line; others ignore it
    if method == "scripted":
        assert provider.position == 1

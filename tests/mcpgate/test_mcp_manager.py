"""The manager's API for servers added at run time (ACP `session/new` passes its own)."""

from __future__ import annotations

import pytest

from raw_tui.errors import ConfigError
from raw_tui.mcp.config import parse_server
from raw_tui.mcp.manager import McpManager

from .mcp_kit import fixture_server


async def test_servers_added_at_run_time_start_and_list_their_tools(tmp_path):
    registered: list[str] = []
    manager = McpManager(cwd=str(tmp_path), register_secret=registered.append)
    manager.add_servers({"acp1": parse_server("acp1", fixture_server(KEY="k-123456789"))})
    with pytest.raises(ValueError, match="duplicate MCP server: acp1"):
        manager.add_servers({"acp1": parse_server("acp1", fixture_server())})
    assert "k-123456789" in registered
    try:
        outcome = await manager.start(["acp1", "acp1"])
        assert [t.name for t in outcome["acp1"]] == ["echo", "hidden_0", "hidden_1", "sleepy"]
        wire = await manager.connection("acp1").call("echo", {"value": "v"})
        assert wire["content"] == [{"type": "text", "text": "fx:echo:v"}]
    finally:
        await manager.close()


def test_parse_server_names_the_problem():
    with pytest.raises(ConfigError, match="transport"):
        parse_server("x", {"command": "y"})
    with pytest.raises(ConfigError, match="server name"):
        parse_server("a/b", fixture_server())

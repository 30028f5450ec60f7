"""The manager's API for servers added at run time (ACP `session/new` passes its own)."""

from __future__ import annotations

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.mcp.config import parse_server
from raw_tui.mcp.manager import McpManager

from .mcp_kit import fixture_server


async def test_servers_added_at_run_time_start_and_list_their_tools(tmp_path):
    from raw_tui.protocol.redact import Redactor

    redactor = Redactor()
    manager = McpManager(cwd=str(tmp_path), redactor=redactor)
    manager.add_servers({"acp1": parse_server("acp1", fixture_server(KEY="k-123456789"))})
    with pytest.raises(ValueError, match="duplicate MCP server: acp1"):
        manager.add_servers({"acp1": parse_server("acp1", fixture_server())})
    assert redactor.text("k-123456789") == "[redacted]"
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


def test_the_sdks_log_records_are_redacted(tmp_path):
    """The SDK logs what a server sent when it cannot parse it (with a traceback): sdk.log
    keeps no configured secret."""
    import logging

    from raw_tui.mcp.sdk_logs import route_sdk_logs
    from raw_tui.protocol.redact import Redactor

    secret = "sdk-log-0123456789-SECRET"
    redactor = Redactor()
    redactor.register(secret)
    route_sdk_logs(tmp_path / "sdk.log", redactor)
    try:
        raise ValueError(f"bad line: {secret}")
    except ValueError:
        logging.getLogger("mcp.client.stdio").exception("Failed to parse %s", secret)
    handler, = [h for h in logging.getLogger("mcp").handlers
                if getattr(h, "baseFilename", None)]
    handler.flush()
    text = open(handler.baseFilename, encoding="utf-8").read()
    assert "Failed to parse [redacted]" in text and "bad line: [redacted]" in text
    assert secret not in text

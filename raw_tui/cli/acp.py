"""`raw-tui acp`: speak ACP on stdin/stdout for an editor (raw_tui/acp/command.py); the ACP
SDK is imported only here."""

from __future__ import annotations

from .common import load, session_request


def add(sub, common) -> None:
    sub.add_parser("acp", parents=[common], help="speak ACP on stdin/stdout (for an editor)")


def run(args) -> int:
    from ..acp.command import serve_stdio

    # a config error exits 2 before anything is served; a selected MCP tool may name a
    # server the client supplies in session/new
    config = load(session_request(args), client_mcp=True)
    return serve_stdio(config, config.agent(args.agent))

"""`_raw/runtime/info {sessionId?}`: what the agent runs with, never a credential
(docs/acp.md, Raw's shape): `agent` (name, model alias, model, method, provider, context
window), `limits`, `mcpSelection` (server → the tools the agent selects), `toolPolicy` (the
rules), and for a session `tools` (what the model sees, each with its `origin`) and
`mcpCatalog` (every tool its MCP servers list, `exposed` or not). raw-tui adds `version` and
`config` (the config file's path; null for the built-in demo).

`origin`: the MCP server's name, `peer` for a tool the client registered (`acp:`),
`built-in` for `builtin/...`, `local` for a folder tool of the config (`agent/...`).
The whole answer goes through the config's redactor (a rule's regex may quote a key).
"""

from __future__ import annotations

from typing import Any


def runtime_info(version: str, config: Any, agent: Any, session: Any = None) -> dict[str, Any]:
    model = agent.model
    compact = agent.config.compact
    info: dict[str, Any] = {
        "version": version,
        "config": str(config.file) if config.file is not None else None,
        "agent": {"name": agent.name, "modelAlias": agent.model_alias,
                  "model": model.model_id, "method": model.method,
                  "provider": model.provider,
                  "contextWindowTokens": model.context_window_tokens},
        "limits": {"maxSteps": agent.config.max_steps,
                   "maxOutputBytes": agent.config.max_output_bytes,
                   "requestTimeoutMs": model.request_timeout_ms,
                   "compact": None if compact is None else {
                       "triggerTokens": compact.trigger_tokens,
                       "keepTurns": compact.keep_turns}},
        "mcpSelection": _selection(agent),
        "toolPolicy": agent.rules.describe(),
        "tools": [],
        "mcpCatalog": [],
    }
    if session is not None:
        visible = session.agent.model_tools()
        info["tools"] = [{"alias": tool.name, "origin": _origin(tool)} for tool in visible]
        info["mcpCatalog"] = _catalog(session, {tool.name for tool in visible})
    return config.redactor.json(info)


def _selection(agent: Any) -> dict[str, list[str]]:
    selected: dict[str, list[str]] = {}
    for tool in agent.tools.tools:
        if tool.is_mcp:
            selected.setdefault(tool.server, []).append(tool.tool_name)
    return selected


def _origin(tool: Any) -> str:
    if tool.is_mcp:
        return tool.server
    if tool.identity.startswith("acp:"):
        return "peer"
    return "built-in" if tool.identity.startswith("builtin/") else "local"


def _catalog(session: Any, visible: set[str]) -> list[dict[str, Any]]:
    """Every tool the session's started MCP servers list, sorted by server then name."""
    from ..mcp.config import alias

    catalog = []
    for server in sorted(session.mcp.servers):
        connection = session.mcp.connection(server)
        for listed in sorted(getattr(connection, "tools", None) or [], key=lambda t: t.name):
            name = alias(server, listed.name)
            catalog.append({"server": server, "originalName": listed.name, "alias": name,
                            "exposed": name in visible})
    return catalog

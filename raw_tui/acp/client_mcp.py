"""An ACP client's `mcpServers` (session/new, load, resume) as raw-tui server configs
(docs/acp.md, docs/mcp.md).

stdio `{name, command, args, env: [{name, value}]}` becomes a stdio server and
`{type: "http", name, url, headers: [{name, value}]}` a streamable-http one; their values are
used as given (no `${VAR}` expansion) and registered with the redactor when the session adds
them. `sse` (not advertised) and `acp` transports are invalid params. The servers' tools stay
hidden until the agent selects one by ID (`mcp/<name>/<tool>` in `tools.use`).
"""

from __future__ import annotations

from typing import Any

from ..protocol.errors import ConfigError
from . import codes
from .codes import error


def client_servers(entries: list | None) -> dict[str, Any]:
    """name -> ServerConfig; -32602 naming the entry for anything that is not one."""
    from ..mcp.config import parse_server

    servers: dict[str, Any] = {}
    for i, entry in enumerate(entries or []):
        where = f"mcpServers[{i}]"
        name = getattr(entry, "name", None)
        kind = getattr(entry, "type", None)
        if kind in ("sse", "acp"):
            raise error(codes.INVALID_PARAMS,
                        f"{where}: {kind.upper()} MCP transport is unsupported")
        if name in servers:
            raise error(codes.INVALID_PARAMS, f"{where}: duplicate MCP server: {name}")
        if kind == "http":
            raw = {"transport": "streamable-http", "url": entry.url,
                   "headers": _pairs(entry.headers, f"{where}.headers")}
        elif hasattr(entry, "command"):
            raw = {"transport": "stdio", "command": entry.command, "args": list(entry.args),
                   "env": _pairs(entry.env, f"{where}.env")}
        else:
            raise error(codes.INVALID_PARAMS, f"{where}: unsupported MCP server entry")
        try:
            servers[name] = parse_server(name, raw, where=["mcpServers", i])
        except ConfigError as err:
            raise error(codes.INVALID_PARAMS, err.line()) from None
    return servers


def _pairs(items: list | None, where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        if item.name in out:
            raise error(codes.INVALID_PARAMS, f"{where}: {item.name} given twice")
        out[item.name] = item.value
    return out

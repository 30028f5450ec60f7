"""`mcp.servers` in raw.json (docs/mcp.md): parsed strictly, without the `mcp` SDK.

    "mcp": {"servers": {
      "search": {"transport": "stdio", "command": "srv", "args": [], "env": {"K": "${K}"},
                 "timeout_ms": 120000, "panels": [{"tool": "todo", "id": "todo", ...}]},
      "web": {"transport": "streamable-http", "url": "https://...", "headers": {...}}}}

`env` and `headers` values are credentials: they are expanded (`${VAR}`) only when a server
starts, never printed, logged or put in an error text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping

import msgspec
import re2

from ..protocol.errors import ConfigError, json_path
from ..jsonstrict import convert

SERVER_NAME_PATTERN = r"^[^/\s]+$"
TOOL_NAME_PATTERN = r"^[^/\s]+$"
DEFAULT_TIMEOUT_MS = 120000
MAX_TIMEOUT_MS = 2147483647
MAX_PANELS_PER_TOOL = 4
ALIAS_PREFIX_CHARS = 47
VAR_PATTERN = r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}"


class StdioServer(msgspec.Struct, tag_field="transport", tag="stdio", forbid_unknown_fields=True,
                  omit_defaults=True):
    command: str
    args: list[str] = msgspec.field(default_factory=list)
    env: dict[str, str] = msgspec.field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    panels: list[Any] = msgspec.field(default_factory=list)

    def __repr__(self) -> str:  # env values are secrets
        return f"StdioServer(command={self.command!r}, args={self.args!r}, env=({len(self.env)} set))"


class HttpServer(msgspec.Struct, tag_field="transport", tag="streamable-http",
                 forbid_unknown_fields=True, omit_defaults=True):
    url: str
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    panels: list[Any] = msgspec.field(default_factory=list)

    def __repr__(self) -> str:  # the url may hold a token; headers are secrets
        return f"HttpServer(headers=({len(self.headers)} set))"


ServerConfig = StdioServer | HttpServer


@dataclass
class McpServers:
    """The parsed `mcp.servers`, with each server's panel declarations by tool name."""

    servers: dict[str, ServerConfig] = field(default_factory=dict)
    declarations: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def parse_mcp(value: Any, *, file: str | None) -> McpServers:
    """The root `mcp` object. Raises ConfigError naming the JSON path."""
    if not value:
        return McpServers()
    if not isinstance(value, dict):
        raise ConfigError("must be an object", file=file, path="mcp")
    for key in value:
        if key != "servers":
            raise ConfigError("unknown key (mcp holds only servers)", file=file,
                              path=json_path(["mcp", key]))
    servers = value.get("servers", {})
    if not isinstance(servers, dict):
        raise ConfigError("must be an object", file=file, path="mcp.servers")
    out = McpServers()
    for name, entry in servers.items():
        where: list[str | int] = ["mcp", "servers", name]
        server = parse_server(name, entry, where=where, file=file)
        out.servers[name] = server
        out.declarations[name] = _declarations(server.panels, where + ["panels"], file,
                                               out.warnings)
    return out


def parse_server(name: str, entry: Any, *, where: list | None = None,
                 file: str | None = None) -> ServerConfig:
    """One server entry (as in `mcp.servers`); ConfigError naming the path. ACP builds its
    `session/new` servers with this, then `McpManager.add_servers`."""
    where = where if where is not None else [name]
    if not isinstance(name, str) or not re2.fullmatch(SERVER_NAME_PATTERN, name):
        raise ConfigError("a server name must not be empty or hold / or spaces", file=file,
                          path=json_path(where))
    if not isinstance(entry, dict) or entry.get("transport") not in ("stdio", "streamable-http"):
        raise ConfigError('transport must be "stdio" or "streamable-http"', file=file,
                          path=json_path(where + ["transport"]))
    server = convert(entry, ServerConfig, where=where, file=file)
    _check_server(server, where, file)
    return server


def _check_server(server: ServerConfig, where: list, file: str | None) -> None:
    if not 1 <= server.timeout_ms <= MAX_TIMEOUT_MS:
        raise ConfigError(f"must be 1..{MAX_TIMEOUT_MS}", file=file,
                          path=json_path(where + ["timeout_ms"]))
    if isinstance(server, StdioServer):
        if not server.command.strip():
            raise ConfigError("must be a nonempty string", file=file,
                              path=json_path(where + ["command"]))
        return
    if not (server.url.startswith("http://") or server.url.startswith("https://")):
        # the url itself is not quoted: it may carry a token
        raise ConfigError("must be an http or https URL", file=file,
                          path=json_path(where + ["url"]))


def _declarations(panels: list[Any], where: list, file: str | None,
                  warnings: list[str]) -> dict[str, list[Any]]:
    """`panels[]` grouped by `tool`, each group checked as a tool.json `panels` list."""
    if not panels:
        return {}
    from ..panels.declaration import parse_declaration

    groups: dict[str, list[tuple[int, dict]]] = {}
    for i, entry in enumerate(panels):
        at = where + [i]
        if not isinstance(entry, dict):
            raise ConfigError("must be an object", file=file, path=json_path(at))
        tool = entry.get("tool")
        if not isinstance(tool, str) or not re2.fullmatch(TOOL_NAME_PATTERN, tool):
            raise ConfigError("required: the MCP tool's name (a string without / or spaces)",
                              file=file, path=json_path(at + ["tool"]))
        groups.setdefault(tool, []).append((i, {k: v for k, v in entry.items() if k != "tool"}))
    out: dict[str, list[Any]] = {}
    for tool, entries in groups.items():
        if len(entries) > MAX_PANELS_PER_TOOL:
            raise ConfigError(f"more than {MAX_PANELS_PER_TOOL} panels for tool {tool!r}",
                              file=file, path=json_path(where + [entries[MAX_PANELS_PER_TOOL][0]]))
        found = []
        seen: set[str] = set()
        for i, entry in entries:
            declaration = parse_declaration(entry, where=where + [i], file=file,
                                            warnings=warnings)
            if declaration.id in seen:
                raise ConfigError(f"duplicate panel id {declaration.id!r} for tool {tool!r}",
                                  file=file, path=json_path(where + [i, "id"]))
            seen.add(declaration.id)
            found.append(declaration)
        out[tool] = found
    return out


# identities and aliases ---------------------------------------------------------------------

def split_identity(identity: str) -> tuple[str, str] | None:
    """`mcp/<server>/<tool>` → (server, tool); None when the id is not of that shape."""
    parts = identity.split("/")
    if len(parts) != 3 or parts[0] != "mcp":
        return None
    if not re2.fullmatch(SERVER_NAME_PATTERN, parts[1]) or \
            not re2.fullmatch(TOOL_NAME_PATTERN, parts[2]):
        return None
    return parts[1], parts[2]


def alias(server: str, tool: str) -> str:
    """The model-facing name: `mcp_<server>_<tool>` sanitised to [A-Za-z0-9_-], cut to 47
    characters, then `_` and 12 hex characters of sha256("<server>\\0<tool>")."""
    base = re2.sub(r"[^A-Za-z0-9_-]", "_", f"mcp_{server}_{tool}")[:ALIAS_PREFIX_CHARS]
    import hashlib

    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:12]
    return f"{base}_{digest}"


# secrets --------------------------------------------------------------------------------

class MissingVariable(Exception):
    """A `${VAR}` reference names a variable that is not set (the message names only VAR)."""


def expand(values: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """`env`/`headers` values with `${VAR}` replaced from the environment."""
    environ = os.environ if environ is None else environ
    var = re2.compile(VAR_PATTERN)
    out = {}
    for key, value in values.items():
        missing = [name for name in var.findall(value) if name not in environ]
        if missing:
            raise MissingVariable(f"{key}: environment variable {missing[0]} is not set")
        out[key] = var.sub(lambda m: environ[m.group(1)], value)
    return out


def secret_values(server: ServerConfig, environ: Mapping[str, str] | None = None, *,
                  literal: bool = False) -> list[str]:
    """Every credential a server config carries once expanded (as given when `literal`),
    for redaction."""
    values = server.env if isinstance(server, StdioServer) else server.headers
    try:
        expanded = dict(values) if literal else expand(values, environ)
    except MissingVariable:
        expanded = dict(values)
    found = [v for v in expanded.values() if v]
    if isinstance(server, HttpServer):
        found.append(server.url)
    return found


"""The per-session MCP manager (docs/mcp.md).

It starts only the servers it is asked for, in parallel, each owned by one task; a server that
cannot start is reported once and the rest go on; `close()` ends every server (and a stdio
server's process tree). `resolve_agent()` turns an agent's pending MCP tools into live ones.

    manager = McpManager(cwd=..., log_dir=...)
    manager.add_servers(config.mcp.servers)          # also at run time (ACP `session/new`)
    agent, warnings = await resolve_agent(agent, manager)
    ...
    await manager.close()
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..protocol.errors import ConfigError
from ..protocol.redact import Redactor
from .config import ServerConfig, secret_values

LOG_DIR_NAME = "mcp"


class McpManager:
    def __init__(self, *, cwd: str, log_dir: Path | None = None,
                 notify: Callable[[str], None] | None = None,
                 redactor: Redactor | None = None) -> None:
        self.cwd = cwd
        self.log_dir = log_dir
        self.notify = notify  # a warning for the user (a server that died mid-session)
        # the config's redactor: each server's expanded env and header values (and its url)
        # are registered when the server is added; the servers' stderr logs go through it
        self.redactor = redactor if redactor is not None else Redactor()
        self.servers: dict[str, ServerConfig] = {}
        self.declarations: dict[str, dict[str, list[Any]]] = {}
        self.literal: set[str] = set()  # servers whose env/header values are not expanded
        self._connections: dict[str, Any] = {}  # name -> connection.Connection
        self._starts: dict[str, asyncio.Task] = {}
        self._closed = False

    # servers ---------------------------------------------------------------------------
    def add_servers(self, servers: Mapping[str, ServerConfig],
                    declarations: Mapping[str, dict[str, list[Any]]] | None = None, *,
                    literal: bool = False) -> None:
        """Make servers known (none is started). A name already known raises ValueError
        `duplicate MCP server: NAME` (ACP answers it as invalid params). `literal`: their
        env/header values are used as given, `${VAR}` not expanded (an ACP client's)."""
        for name in servers:
            if name in self.servers:
                raise ValueError(f"duplicate MCP server: {name}")
        for name, server in servers.items():
            self.servers[name] = server
            self.declarations[name] = dict((declarations or {}).get(name, {}))
            if literal:
                self.literal.add(name)
            for value in secret_values(server, literal=literal):
                self.redactor.register(value)

    def secrets(self) -> list[str]:
        """Every credential of the known servers, expanded (for redaction)."""
        return [value for name, server in self.servers.items()
                for value in secret_values(server, literal=name in self.literal)]

    async def start(self, names: Iterable[str]) -> dict[str, Any]:
        """Start these servers in parallel (each once); name → its tools (a list) or the
        McpFailure that stopped it."""
        wanted = list(dict.fromkeys(names))
        for name in wanted:
            if name not in self._starts:
                self._starts[name] = asyncio.create_task(self._start_one(name))
        outcomes = await asyncio.gather(*(asyncio.shield(self._starts[n]) for n in wanted))
        return dict(zip(wanted, outcomes))

    async def _start_one(self, name: str) -> Any:
        # the SDK takes about a second to import: in a thread, so a UI keeps drawing
        await asyncio.to_thread(importlib.import_module, "raw_tui.mcp.connection")
        from .connection import Connection, McpFailure
        from .sdk_logs import route_sdk_logs

        if self._closed:
            return McpFailure(f"MCP server {name}: the session is closing")
        server = self.servers.get(name)
        if server is None:
            return McpFailure(f"unknown MCP server {name}")
        from ..paths import open_private

        log_dir = self._log_dir()
        os.close(open_private(log_dir / "sdk.log"))  # 0600 before logging appends to it
        route_sdk_logs(log_dir / "sdk.log", self.redactor)
        connection = Connection(name, server, cwd=self.cwd, log_file=log_dir / f"{name}.log",
                                on_death=self._died, literal=name in self.literal,
                                redactor=self.redactor)
        self._connections[name] = connection
        try:
            return await connection.start()
        except McpFailure as failure:
            await connection.close()
            return failure

    def _died(self, name: str, why: str, stderr_tail: str) -> None:
        """A started server ended (exited, killed, or its stream closed): said at once. Its
        tools are unavailable from now on (`McpTool.available`); it is not restarted (docs/mcp.md: a transport error
        closes the connection, nothing reconnects)."""
        if self.notify is not None and not self._closed:
            said = f"; its last stderr: {stderr_tail}" if stderr_tail else ""
            self.notify(f"MCP server {name} ended ({why}){said}; its tools are unavailable "
                        "for the rest of the session")

    def connection(self, name: str) -> Any:
        return self._connections.get(name)

    def _log_dir(self) -> Path:
        from ..paths import private_dir, state_home

        return private_dir(self.log_dir or state_home() / LOG_DIR_NAME)  # 0700

    async def close(self) -> None:
        """End every server; waits for their owners (a stdio server gets its stdin closed,
        then 2 s, then its process tree is killed). A server that ended before is said first."""
        await asyncio.gather(*(c.death_reported() for c in self._connections.values()),
                             return_exceptions=True)
        self._closed = True
        for task in self._starts.values():
            if not task.done():
                task.cancel()
        await asyncio.gather(*self._starts.values(), return_exceptions=True)
        await asyncio.gather(*(c.close() for c in self._connections.values()),
                             return_exceptions=True)


# an agent's tools -----------------------------------------------------------------------

def pending_servers(agent: Any) -> list[str]:
    """The servers an agent's pending MCP tools need, in `tools.use` order."""
    return list(dict.fromkeys(t.server for t in agent.tools.tools
                              if t.is_mcp and t.pending))


async def resolve_agent(agent: Any, manager: McpManager, *, file: str | None = None,
                        only: Iterable[str] | None = None
                        ) -> tuple[Any, list[str], dict[str, str]]:
    """(the agent with its MCP tools live, the warnings, identity → status `found`,
    `missing` or `skipped`). A server that cannot start or a tool it does not list or whose
    schema or policy cannot be bound is left out with one warning. `only` limits the servers
    started (`raw-tui call` starts one); the others' tools stay pending (not exposed)."""
    from ..tools.registry import ExposedTools

    servers = pending_servers(agent)
    if only is not None:
        servers = [s for s in servers if s in set(only)]
    if not servers:
        return agent, [], {}
    outcomes = await manager.start(servers)
    warnings: list[str] = []
    status: dict[str, str] = {}
    tools = []
    for server in servers:
        if not isinstance(outcomes[server], list):
            warnings.append(f"{outcomes[server]}; its tools are skipped")
    for tool in agent.tools.tools:
        if not (tool.is_mcp and tool.pending) or tool.server not in outcomes:
            tools.append(tool)
            continue
        outcome = outcomes[tool.server]
        if not isinstance(outcome, list):
            status[tool.identity] = "skipped"
            continue
        listed = next((t for t in outcome if t.name == tool.tool_name), None)
        if listed is None:
            status[tool.identity] = "missing"
            warnings.append(f"MCP server {tool.server} does not list tool {tool.tool_name!r}: "
                            f"{tool.identity} skipped")
            continue
        try:
            live = _bind(agent, tool, listed, manager.connection(tool.server), file)
        except ConfigError as err:
            status[tool.identity] = "skipped"
            warnings.append(f"{tool.identity} skipped: {err.line()}")
            continue
        status[tool.identity] = "found"
        tools.append(live)
    return dataclasses.replace(agent, tools=ExposedTools(tools)), warnings, status


def _bind(agent: Any, tool: Any, listed: Any, connection: Any, file: str | None) -> Any:
    """The live tool: its schema checked as any tool's, rules and hook `when`s bound to it."""
    from ..contract.schema import build_validator
    from ..hooks.load import bind_manifest

    label = f"MCP server {tool.server} tool {tool.tool_name}"
    validator = build_validator(listed.input_schema, where=["inputSchema"], file=label)
    live = tool.bound(description=listed.description, input_schema=listed.input_schema,
                      validator=validator, connection=connection)
    one = {live.identity: live}
    agent.rules.bind(one, where=["agents", agent.name, "tools", "rules"], file=file)
    for hook in agent.hooks:
        bind_manifest(hook.manifest, one, file=f"{file or ''}: hook {hook.id}".lstrip(": "))
    return live


def check_effects_predicates(rules: Any, tools: Iterable[Any], *, where: list,
                             file: str | None) -> None:
    """At config load: a rule's `when` on `effects` covering an MCP tool is a config error
    (MCP tools have no effects); `arguments` predicates are bound once the schema is known."""
    from ..policy.binding import check_binding

    for rule in rules.rules:
        if rule.when is None or rule.when.source != "effects":
            continue
        for tool in tools:
            if rule.match.matches(tool.identity):
                check_binding(rule.when, tool, where=[*where, rule.index, "when"], file=file)

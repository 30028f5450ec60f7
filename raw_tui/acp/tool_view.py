"""`_raw/session/configure {sessionId, tools}`: which tools a session's model sees
(docs/acp.md, Raw's `setToolView`).

`tools` is the whole selection, by alias: the tools the agent selects in `tools.use`, the
tools the client registered, and every tool its MCP servers list (the agent's servers and
the ones the client supplied in `session/new`, started here to be listed: hidden until
selected). A selected tool still goes through the whole gate; a tool left out is neither
shown to the model nor dispatched (`tool_not_exposed`). A name that is none of these, or a
tool a `deny` rule hides, refuses the whole selection (-32004) and changes nothing.
Refusals are the SDK's RequestError (`codes.error`), answered as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..mcp.config import alias as mcp_alias
from ..mcp.config import split_identity
from ..tools.registry import ExposedTools
from . import codes
from .codes import error


@dataclass
class ToolView:
    """One session's tool view in this connection."""

    revision: int = 1  # +1 each time a client changes what the model sees
    tools: dict[str, Any] = field(default_factory=dict)  # alias -> every selectable tool
    unlisted: set[str] = field(default_factory=set)  # servers that could not list (said once)


def requested(params: dict[str, Any]) -> list[str]:
    """The `tools` param: tool names, each once, in the order given."""
    names = params.get("tools")
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise error(codes.INVALID_PARAMS, "tools: must be an array of tool names")
    return list(dict.fromkeys(names))


async def configure(bridge: Any, names: list[str]) -> dict[str, Any]:
    """Show the model exactly `names` (checked first, all or nothing); `{contextRevision,
    tools}` (what the model sees now)."""
    session = bridge.session
    await session.mcp_ready()  # the agent's own MCP tools are bound first
    tools = await selectable(bridge)
    _check(session.agent, tools, names)
    wanted = set(names)
    mcp = [tool for name, tool in tools.items()
           if name in wanted and tool.is_mcp and tool.pending]
    if mcp:
        tools.update(await _bind(session, mcp))
    if not bridge.idle:  # a prompt started while the servers were listing their tools
        raise error(codes.BUSY, f"session {bridge.id} is busy")
    before = visible(session)
    session.agent.tools = ExposedTools([tool for name, tool in tools.items() if name in wanted])
    return {"contextRevision": revise(bridge, before), "tools": visible(session)}


def visible(session: Any) -> list[str]:
    """The aliases the model sees now."""
    return [tool.name for tool in session.agent.model_tools()]


def revise(bridge: Any, before: list[str]) -> int:
    """The context revision after a change of tools: +1 when the model sees other tools."""
    if visible(bridge.session) != before:
        bridge.tool_view.revision += 1
    return bridge.tool_view.revision


async def selectable(bridge: Any) -> dict[str, Any]:
    """Alias → tool, for every tool the session may show: the agent's selection when first
    asked (kept: a configuration hides tools, never forgets them), the tools registered
    since, then every tool the session's MCP servers list (pending until selected)."""
    session = bridge.session
    view = bridge.tool_view
    tools = view.tools
    for tool in session.agent.tools.tools:
        tools.setdefault(tool.name, tool)
    for server, listed in (await _catalog(session, view)).items():
        for name in listed:
            identity = f"mcp/{server}/{name}"
            if split_identity(identity) is None:  # a name no rule or hook could match
                continue
            tools.setdefault(mcp_alias(server, name), _pending(session, identity))
    return tools


async def _catalog(session: Any, view: ToolView) -> dict[str, list[str]]:
    """Server → the tool names it lists: the servers of the selectable tools and the
    client's, started now if they were not. One that cannot start lists nothing (a warning,
    once: the client learns why its tools are unknown)."""
    servers = [tool.server for tool in view.tools.values() if tool.is_mcp]
    servers += sorted(session.mcp.literal)  # the client's (`session/new` mcpServers)
    outcomes = await session.mcp.start(dict.fromkeys(servers))
    for server, outcome in outcomes.items():
        if not isinstance(outcome, list) and server not in view.unlisted:
            view.unlisted.add(server)
            if session.mcp.notify is not None:
                session.mcp.notify(f"{outcome}; its tools are not listed")
    return {server: [tool.name for tool in outcome]
            for server, outcome in outcomes.items() if isinstance(outcome, list)}


def _pending(session: Any, identity: str) -> Any:
    from ..mcp.tool import McpTool

    server, name = split_identity(identity)  # type: ignore[misc]
    return McpTool.pending_from(identity, session.mcp.declarations.get(server, {}).get(name, []))


def _check(agent: Any, tools: dict[str, Any], names: list[str]) -> None:
    """Every name is a tool the session may show, and no `deny` rule hides it."""
    unknown = [n for n in names if n not in tools]
    denied = [n for n in names if n in tools
              and agent.rules.unconditional(tools[n].identity)[0] == "deny"]
    problems = ([f"unknown tool{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}"]
                if unknown else [])
    problems += [f"tool {n} is denied by a rule ({tools[n].identity})" for n in denied]
    if problems:
        raise error(codes.UNKNOWN_TOOL, "; ".join(problems),
                      {"unknown": unknown, "denied": denied})


async def _bind(session: Any, tools: list[Any]) -> dict[str, Any]:
    """The selected MCP tools, live: their schemas checked, rules and hooks bound to them
    (as at start-up); their panels registered with the session."""
    from dataclasses import replace

    from ..mcp.manager import resolve_agent

    pending = replace(session.agent, tools=ExposedTools(tools))
    agent, warnings, _ = await resolve_agent(pending, session.mcp, file=session.config.label)
    if warnings:
        raise error(codes.UNKNOWN_TOOL, "; ".join(warnings))
    for tool in agent.tools.tools:
        session.panels.register(tool.identity, tool.declarations)
    return {tool.name: tool for tool in agent.tools.tools}

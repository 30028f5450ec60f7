"""Switching a session's agent or model, and starting the MCP servers its agent's tools use.

The next turns run as the new agent (tools, rules, hooks) on its model; a model switch keeps
the tools the MCP servers resolved. The servers start in the background (the UI draws
first); a turn waits for them before its first model request (session/turn.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING

import msgspec

from ..protocol import bus as ev
from ..protocol import commands as cmd
from ..protocol import errors
from .state import SessionState

if TYPE_CHECKING:
    from ..config import Agent
    from ..mcp.config import ServerConfig
    from ..mcp.manager import McpManager
    from ..models.base import ModelProvider, ModelSpec


def switch(s: SessionState, agent_name: str, model: str | None) -> cmd.Reply:
    """Run the next turns as `agent_name` on `model` (None: the agent's own model)."""
    refused = s.refuse_unless_idle()
    if refused is not None:
        return refused
    if agent_name not in s.config.agents:
        return cmd.Reply(ok=False, code=errors.UNKNOWN_AGENT,
                         message=f"unknown agent {agent_name!r}")
    agent = s.config.agents[agent_name]
    if model is not None:
        if model not in s.config.models:
            return cmd.Reply(ok=False, code=errors.UNKNOWN_MODEL,
                             message=f"unknown model {model!r}")
        agent = dataclasses.replace(agent, model_alias=model, model=s.config.models[model])
    use_agent(s, agent)
    s.bus.publish(ev.AgentModel(agent=agent.name, model=agent.model_alias))
    s.publish_state()
    return cmd.Reply()


def use_agent(s: SessionState, agent: Agent) -> None:
    """Turns from now on run as `agent` (tools, rules, hooks) on its model."""
    same_agent = agent.name == s.agent.name
    s.provider = provider_for(agent)
    if same_agent:  # only the model changes: keep the tools MCP servers resolved
        agent = dataclasses.replace(s.agent, model_alias=agent.model_alias, model=agent.model)
    s.agent = s.dispatcher.agent = agent
    s.info = msgspec.structs.replace(s.info, agent=agent.name, model=agent.model_alias,
                                     max_steps=agent.config.max_steps,
                                     sandbox=sandbox_status(agent))
    if same_agent:
        return
    old = s.hooks.swap(agent.hooks)
    s.hooks.agent_id = agent.name
    if old is not agent.hooks:
        old.close()
    for tool in agent.tools.tools:
        s.panels.register(tool.identity, tool.declarations)
    s.mcp_task = None
    start_mcp(s)


def start_mcp(s: SessionState) -> None:
    """Start the MCP servers the agent's tools use, in the background; the first model
    request waits for them. Idempotent."""
    from ..mcp.manager import pending_servers

    if s.mcp_task is None and pending_servers(s.agent):
        s.mcp_task = asyncio.create_task(_start_mcp(s), name="mcp-start")


async def mcp_ready(s: SessionState) -> None:
    """Wait until the MCP servers started (or failed); their tools are then exposed."""
    if s.mcp_task is not None:
        await asyncio.shield(s.mcp_task)


async def _start_mcp(s: SessionState) -> None:
    from ..mcp.manager import resolve_agent

    wanted = s.agent
    agent, warnings, status = await resolve_agent(wanted, s.mcp, file=s.config.label)
    if s.agent.name != wanted.name:  # switched meanwhile: that agent's own start counts
        return
    # a model switched meanwhile stays
    agent = dataclasses.replace(agent, model_alias=s.agent.model_alias, model=s.agent.model)
    s.agent = s.dispatcher.agent = agent
    s.mcp_status, s.mcp_warnings = status, warnings
    for tool in agent.tools.tools:
        if tool.is_mcp:
            s.panels.register(tool.identity, tool.declarations)
    for warning in warnings:
        s.warn(warning)


def mcp_manager(s: SessionState, client_servers: dict[str, ServerConfig] | None
                ) -> McpManager:
    """The session's MCP manager (no server started): the configured servers, then an ACP
    client's (their env/header values used as given)."""
    from ..mcp.manager import McpManager

    # credentials never leave (docs/security.md)
    manager = McpManager(cwd=s.cwd, notify=s.warn, redactor=s.redactor)
    if s.config.mcp is not None:
        manager.add_servers(s.config.mcp.servers, s.config.mcp.declarations)
    if client_servers:
        manager.add_servers(client_servers, literal=True)
    return manager


def provider_for(agent: Agent) -> ModelProvider:
    from ..models.base import make_provider

    return make_provider(model_spec(agent))


def model_spec(agent: Agent) -> ModelSpec:
    from ..models.base import ModelSpec

    m = agent.model
    return ModelSpec(method=m.method, model_id=m.model_id, base_url=m.base_url,
                     api_key_env=m.api_key_env, api_key=m.api_key, script=m.script,
                     request_timeout_ms=m.request_timeout_ms,
                     context_window_tokens=m.context_window_tokens, max_tokens=m.max_tokens,
                     tool_choice=m.tool_choice, provider=m.provider, alias=agent.model_alias,
                     when_done=m.when_done)


def sandbox_status(agent: Agent) -> str:
    """The status line's words on bash's sandbox, for an agent that uses bash."""
    if not any(t.identity == "builtin/bash" for t in agent.tools.tools):
        return ""
    from ..tools.sandbox.settings import for_agent

    return for_agent(agent).status()

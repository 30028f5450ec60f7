"""`raw-tui config list [--json]`: validate the configuration and list what it defines (the
models, each agent's tools, rules, hooks and sandbox), never a secret; the warnings on
stderr."""

from __future__ import annotations

import sys
from typing import Any

from ..protocol.errors import json_path
from .common import EXIT_OK, load, session_request


def add(sub, common) -> None:
    config = sub.add_parser("config", parents=[common], help="check and list the configuration")
    config_sub = config.add_subparsers(dest="config_command", metavar="list", required=True)
    config_list = config_sub.add_parser("list", parents=[common], help="validate and list")
    config_list.add_argument("--json", action="store_true")


def run(args) -> int:
    import json

    config = load(session_request(args))
    mcp_status: dict[str, dict[str, str]] = {}
    if any(agent.mcp_servers() for agent in config.agents.values()):
        import asyncio

        mcp_status = asyncio.run(_mcp_status(config, str(args.cwd_path)))
    listing = config_listing(config, mcp_status)
    listing["warnings"] = config_warnings(config)
    # a key also written elsewhere (a base_url query, a rule's regex) is not shown either
    listing = config.redactor.json(listing)
    for warning in listing["warnings"]:
        print(f"raw-tui: warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(listing, indent=2))
        return EXIT_OK
    print(f"config: {listing['config']}")
    print(f"default agent: {listing['default_agent']}")
    for alias, model in listing["models"].items():
        extra = " ".join(f"{k}={v}" for k, v in model.items() if k != "method")
        print(f"model {alias}: {model['method']} {extra}".rstrip())
    for name, agent in listing["agents"].items():
        print(f"agent {name}: model {agent['model']}, max_steps {agent['max_steps']}")
        for tool in agent["tools"]:
            flag = "" if tool["exposed"] else "  (denied: hidden from the model)"
            if "status" in tool:  # an MCP tool: found, missing or skipped
                flag = f"  ({tool['status']})" if tool["status"] != "found" else flag
                print(f"  tool {tool['identity']} as {tool['name']} (MCP){flag}")
                continue
            print(f"  tool {tool['identity']} as {tool['name']} {tool['version']}{flag}")
        for rule in agent["rules"]:
            when = f" when {json.dumps(rule['when'])}" if rule.get("when") else ""
            print(f"  rule [{rule['index']}] {rule['match']} -> {rule['effect']}{when}")
        for hook in agent["hooks"]:
            events = ", ".join(hook["events"])
            print(f"  hook {hook['id']}: {events}")
        if "sandbox" in agent:
            print(f"  {sandbox_words(agent['sandbox'])}")
    return EXIT_OK


def sandbox_words(listing: dict[str, Any]) -> str:
    """`sandbox: overlay · net off`, or `sandbox off: REASON` (docs/sandbox.md)."""
    if listing["mode"] == "off":
        return f"sandbox off: {listing.get('reason') or 'mode off'}"
    if not listing["available"]:
        return (f"sandbox: {listing['mode']} cannot run here ({listing.get('reason')}): bash "
                "calls fail sandbox_unavailable")
    return f"sandbox: {listing['mode']} · net {'on' if listing.get('network') else 'off'}"


async def _mcp_status(config, cwd: str) -> dict[str, dict[str, str]]:
    """Start every MCP server some agent selects (each once, in parallel); agent → identity →
    found | missing | skipped. A server's failure is one warning on stderr."""
    from ..mcp.manager import McpManager, resolve_agent

    manager = McpManager(cwd=cwd, redactor=config.redactor)
    manager.add_servers(config.mcp.servers, config.mcp.declarations)
    try:
        await manager.start(s for agent in config.agents.values() for s in agent.mcp_servers())
        status: dict[str, dict[str, str]] = {}
        warned: set[str] = set()
        for name, agent in config.agents.items():
            _, warnings, status[name] = await resolve_agent(agent, manager, file=config.label)
            for warning in warnings:
                if warning not in warned:
                    warned.add(warning)
                    print(f"raw-tui: warning: {config.redactor.text(warning)}",
                          file=sys.stderr)
        return status
    finally:
        await manager.close()


def config_warnings(config) -> list[str]:
    """What loads but deserves a word: an unknown panel icon (once per tool, MCP panel
    declarations included), a rule that can never decide, a `ui.keymap` entry that names no
    binding."""
    import json

    seen: dict[str, None] = dict.fromkeys(config.mcp_warnings())
    from ..panels.declaration import plan_panel

    for agent in config.agents.values():
        for tool in agent.tools.tools:
            seen.update(dict.fromkeys(tool.warnings))
        seen.update(dict.fromkeys(plan_panel(agent.tools.tools)[1]))
    for name, agent in config.agents.items():
        identities = [tool.identity for tool in agent.tools.tools]
        for rule, later in agent.rules.never_deciding(identities):
            at = json_path(["agents", name, "tools", "rules", rule.index])
            seen[f"{at}: never decides: "
                 f"rules[{later.index}] ({later.match.pattern}) matches every tool it "
                 f"matches"] = None
    for name, agent in config.agents.items():
        warning = _sandbox_warning(name, agent)
        if warning:
            seen[warning] = None
    if not config.raw.ui.keymap:
        return list(seen)
    from ..ui.binding_ids import BINDING_IDS  # a plain list: no textual

    for binding in config.raw.ui.keymap:
        if binding not in BINDING_IDS:
            seen[f"ui.keymap[{json.dumps(binding)}]: no such binding id"] = None
    return list(seen)


def _uses_bash(agent) -> bool:
    return any(t.identity == "builtin/bash" for t in agent.tools.tools)


def _sandbox_warning(name: str, agent) -> str | None:
    """An agent whose bash cannot be sandboxed here: the reason and the fix."""
    if not _uses_bash(agent):
        return None
    from ..tools.sandbox.settings import for_agent

    found = for_agent(agent)
    if found.available:
        return None
    if found.fail_closed:
        at = json_path(["agents", name, "sandbox", "mode"])
        return (f"{at}: {found.mode!r} cannot run here: {found.reason}; bash calls fail "
                f"sandbox_unavailable (fix: {found.fix})")
    if found.explicit:  # mode off, set so
        return None
    return f"{json_path(['agents', name])}: sandbox off: {found.reason} (fix: {found.fix})"


def config_listing(config, mcp_status: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """Everything `config list` shows; never a secret (api_key is reported as set or not;
    MCP servers show no env, headers or url)."""
    models = {}
    for alias, value in config.raw.models.items():
        model = dict(value)
        if "api_key" in model:
            model["api_key"] = "(set)"
        models[alias] = model
    agents = {}
    for name, agent in config.agents.items():
        exposed = {t.identity for t in agent.tools.tools
                   if agent.rules.unconditional(t.identity)[0] != "deny"}
        agents[name] = {
            "model": agent.model_alias,
            "max_steps": agent.config.max_steps,
            "max_output_bytes": agent.config.max_output_bytes,
            "tools": [_tool_listing(t, t.identity in exposed,
                                    (mcp_status or {}).get(name, {}))
                      for t in agent.tools.tools],
            "rules": agent.rules.describe(),
            "hooks": [{"id": h.id, "name": h.name, "folder": str(h.folder),
                       "events": [s.event for s in h.manifest.subscriptions]} for h in agent.hooks],
        }
        from ..tools.sandbox.settings import for_agent

        agents[name]["sandbox"] = for_agent(agent).listing()
    default = config.raw.default_agent or next(iter(config.agents), None)
    listing = {"config": config.label, "default_agent": default, "models": models,
               "agents": agents}
    if config.mcp is not None:
        listing["mcp_servers"] = {name: {"transport": server.__struct_config__.tag,
                                         "timeout_ms": server.timeout_ms}
                                  for name, server in config.mcp.servers.items()}
    return listing


def _tool_listing(tool, exposed: bool, mcp_status: dict[str, str]) -> dict[str, Any]:
    if tool.is_mcp:
        status = mcp_status.get(tool.identity, "skipped")
        return {"identity": tool.identity, "name": tool.name, "server": tool.server,
                "tool": tool.tool_name, "status": status,
                "exposed": exposed and status == "found"}
    return {"identity": tool.identity, "name": tool.name, "version": tool.manifest.version,
            "exposed": exposed, "folder": str(tool.folder)}

"""`raw-tui call TOOL --args JSON [--approve yes|no] [--dry-run]`: one tool call through the
gate (policy, hooks, approval, the handler), its report as JSON."""

from __future__ import annotations

import sys

from ..protocol.errors import ConfigError
from .common import EXIT_CANCELLED, EXIT_CONFIG, EXIT_ERROR, EXIT_OK, load, session_request


def add(sub, common) -> None:
    call = sub.add_parser("call", parents=[common], help="send one tool call through the gate")
    call.add_argument("tool", metavar="TOOL", help="an identity or a model-facing name")
    call.add_argument("--args", required=True, metavar="JSON", help="the arguments, as JSON")
    call.add_argument("--approve", choices=("yes", "no"), help="answer an approval request")
    call.add_argument("--dry-run", action="store_true", help="stop before the handler")


def run(args) -> int:
    import json

    config = load(session_request(args))
    agent = config.agent(args.agent)
    from ..jsonstrict import loads as strict_loads

    try:  # strict, as the config: a duplicate key or NaN is refused, not guessed at
        arguments = strict_loads(args.args, file="--args")
    except ConfigError as err:
        print(f"raw-tui: --args is not JSON: {err.path + ': ' if err.path else ''}{err.detail}",
              file=sys.stderr)
        return EXIT_CONFIG
    import asyncio

    report, signalled = asyncio.run(_call(agent, config, args, arguments))
    print(json.dumps(config.redactor.json(report.to_json()), indent=2, ensure_ascii=False))
    if signalled:
        return EXIT_CANCELLED
    if report.outcome in ("ran", "would_run") and not report.result.isError:
        return EXIT_OK
    return EXIT_ERROR


async def _call(agent, config, args, arguments):
    """One dispatch, and whether a signal stopped it: SIGINT, SIGTERM and SIGHUP cancel it
    (its report then says `cancelled`)."""
    import asyncio

    from ..approval import FixedApprover
    from ..protocol.bus import Bus
    from ..cancel import on_stop_signals
    from ..tools.dispatch import Dispatcher

    bus = Bus(config.redactor)
    cancel = asyncio.Event()
    approver = FixedApprover(args.approve == "yes") if args.approve else None
    manager = None
    target = agent.tools.find(args.tool)
    if target is not None and target.is_mcp:  # start that tool's server, and only that one
        agent, manager = await _start_mcp(agent, config, str(args.cwd_path), [target.server])
    hooks = _hook_dispatcher(agent, bus, str(args.cwd_path))
    panels = _panel_host(bus)
    if target is not None and target.is_mcp:
        panels.register(target.identity, target.declarations)
    dispatcher = Dispatcher(agent, bus=bus, cwd=str(args.cwd_path), hooks=hooks,
                            approver=approver, panels=panels, interactions=None)
    with on_stop_signals(cancel.set):
        try:
            report = await dispatcher.dispatch(args.tool, arguments, call_id="call_cli",
                                               cancel=cancel, dry_run=args.dry_run)
            return report, cancel.is_set()
        finally:
            if hooks is not None:
                hooks.close()
            if manager is not None:
                await manager.close()


async def _start_mcp(agent, config, cwd: str, servers: list[str] | None = None):
    """(the agent with its MCP tools live, the manager to close); warnings on stderr."""
    from ..mcp.manager import McpManager, resolve_agent

    manager = McpManager(cwd=cwd, redactor=config.redactor)
    manager.add_servers(config.mcp.servers, config.mcp.declarations)
    agent, warnings, _ = await resolve_agent(agent, manager, file=config.label, only=servers)
    for warning in warnings:
        print(f"raw-tui: warning: {config.redactor.text(warning)}", file=sys.stderr)
    return agent, manager


def _hook_dispatcher(agent, bus, cwd):
    if not len(agent.hooks):
        return None
    from ..hooks import HookDispatcher

    return HookDispatcher(agent.hooks, bus, cwd=cwd, agent_id=agent.name,
                          session_id="cli")


def _panel_host(bus):
    from ..panels.host import PanelHost

    return PanelHost(bus)

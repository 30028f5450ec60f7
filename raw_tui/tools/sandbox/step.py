"""The dispatch step between the PreToolUse hooks and the approval (docs/sandbox.md):
bash's dry run in its layer, the rules on what it did, and the gate's own files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol import errors
from ...protocol.bus import ApprovalPreview, FilePreview
from ..approval_preview import effect_files
from .call import SandboxCall, gate_paths, touches
from .layer import LayerRefused
from .settings import for_agent

if TYPE_CHECKING:
    from ...config import Agent

BASH = "builtin/bash"


def _gate(agent: Agent) -> list[str]:
    """The gate's own files for this agent, found once."""
    if agent.sandbox_gate is None:
        agent.sandbox_gate = gate_paths(agent.config_file, agent.config_dir)
    return agent.sandbox_gate


def _stop(dispatcher, code: str, message: str):
    from ..dispatch import Stop

    return Stop("sandbox", code, message)


async def observe(dispatcher, call) -> None:
    agent, report = dispatcher.agent, call.report
    if call.tool.identity != BASH:
        files = effect_files(call.effects) if report.rule == "allow" else ()
        if files and touches([p for p, _ in files], _gate(agent)):
            report.rule, call.reason = "ask", "protected_path"
        return
    resolved = for_agent(agent)
    if resolved.mode == "off":
        if agent.rules.has_observed(BASH):  # a rule on what it did that cannot be checked
            raise _stop(dispatcher, errors.SANDBOX_UNAVAILABLE,
                        f"sandbox unavailable: {resolved.reason or 'mode off'}; tools.rules "
                        f"judge what bash did, which needs the overlay; fix: {resolved.fix}")
        return
    box = SandboxCall(resolved, agent.config.sandbox, cwd=dispatcher.cwd,
                      config_file=agent.config_file, config_dir=agent.config_dir)
    call.sandbox = box
    if resolved.fail_closed:
        raise _stop(dispatcher, errors.SANDBOX_UNAVAILABLE,
                    f"sandbox unavailable: {resolved.reason}; fix: {resolved.fix}")
    if resolved.mode != "overlay":
        return
    ctx = dispatcher._context(call)
    dry = report.rule == "ask" or call.dry_run
    module = call.tool.module()
    try:  # bash ends the command itself when the call is cancelled
        observed = await box.dry_run(call.arguments, ctx, module.run_commands, dry=dry)
    except LayerRefused as refused:
        raise _stop(dispatcher, refused.code, refused.message) from None
    finally:
        if ctx.panels is not None:
            ctx.panels.close()
        if ctx.output is not None:
            ctx.output.close()
    report.observed = observed
    if call.cancel.is_set():
        if dry:  # nothing was approved: the layer is thrown away
            raise _stop(dispatcher, errors.CANCELLED, "cancelled")
        box.cancelled = True
    verdict = agent.rules.observed(BASH, observed)
    if verdict is not None:
        effect, index = verdict
        report.rule, report.rule_index = effect, index
        if effect == "deny":
            raise _stop(dispatcher, errors.TOOL_DENIED,
                        f"tool denied: {BASH}: what the command did matches "
                        f"tools.rules[{index}]")
    if box.protected_hits() and report.rule != "ask":
        report.rule, call.reason = "ask", "protected_path"
    if box.cancelled and report.rule == "ask":
        box.cancelled = False
        raise _stop(dispatcher, errors.CANCELLED, "cancelled")


def preview(box: SandboxCall | None) -> ApprovalPreview | None:
    """The observed changes as write_file's preview (each file with its diff), for the
    modal's diff view."""
    if box is None or box.observed is None:
        return None
    files = [FilePreview(path=path, operation=op, diff=diff)
             for path, op, diff in box.preview_files()]
    return ApprovalPreview(files=files) if files else None


def observed_json(box: SandboxCall | None) -> dict[str, Any] | None:
    return None if box is None else box.observed

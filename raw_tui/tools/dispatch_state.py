"""One call's state as it moves through dispatch (tools/dispatch.py): the `Stop` a step
raises, the deadlines of tool code, the report `raw-tui call` prints, and the helpers the
steps share."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..protocol import bus as ev
from ..jsonstrict import (json_problem, lone_surrogate_at, printable_path,
                          without_lone_surrogates)
from . import worker
from .ports import Tool
from .result import ToolResult


def _not_json(value: Any) -> str | None:
    """`$.path: why` when the value is not JSON raw-tui accepts (jsonstrict.json_problem): a
    lone surrogate (RE2 cannot search it, it cannot be encoded), a number that is not finite
    (`1e999` decoded by a lenient parser: a hook would see null where the handler sees inf),
    nesting deeper than jsonstrict.MAX_DEPTH, a type JSON does not have."""
    problem = json_problem(value)
    if problem is None:
        return None
    path = "".join(f"[{k}]" if isinstance(k, int) else f".{k}"
                   for k in printable_path(problem.where or []))
    return f"${path}: {problem.detail}"


def _replace_lone_surrogates(value: Any) -> Any:
    """The value with each lone surrogate as U+FFFD (only when it holds one), so that the
    `tool_call` event of an invalid call can still be stored and shown."""
    if lone_surrogate_at(value) is None:
        return value

    def fix(node: Any) -> Any:
        if isinstance(node, str):
            return without_lone_surrogates(node)
        if isinstance(node, dict):
            return {fix(k): fix(v) for k, v in node.items()}
        if isinstance(node, (list, tuple)):
            return [fix(v) for v in node]
        return node

    return fix(value)


def _text(err: BaseException) -> str:
    """An exception's message, even when its own `__str__` raises."""
    try:
        return str(err)
    except Exception:
        return type(err).__name__


class Stop(Exception):
    """A step stopped the call."""

    def __init__(self, stage: str, code: str, message: str) -> None:
        super().__init__(message)
        self.stage, self.code, self.message = stage, code, message


@dataclass(frozen=True)
class Deadlines:
    """How long a tool's synchronous code may run (raw_tui.tools.worker)."""

    load_s: float = worker.LOAD_DEADLINE_S
    validate_s: float = worker.VALIDATE_DEADLINE_S
    effects_s: float = worker.EFFECTS_DEADLINE_S
    handler_s: float = worker.HANDLER_DEADLINE_S
    cancel_grace_s: float = worker.CANCEL_GRACE_S


@dataclass
class DispatchReport:
    """What happened to one call; `raw-tui call` prints it (docs/command-line.md)."""

    outcome: str  # ran | would_run | stopped
    stage: str
    result: ToolResult
    code: str | None = None
    message: str | None = None
    rule: str | None = None  # allow | ask | deny
    rule_index: int | None = None
    identity: str | None = None
    name: str | None = None
    effects: Any = None
    approval_requested: bool = False
    receipts: list[ev.HookEvent] = field(default_factory=list)
    observed: Any = None  # a sandboxed bash call's observed effects (docs/sandbox.md)

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "stage": self.stage,
            "code": self.code,
            "message": self.message,
            "rule": self.rule,
            "rule_index": self.rule_index,
            "effects": self.effects,
            "approval_requested": self.approval_requested,
            "receipts": [_receipt(r) for r in self.receipts],
            "result": self.result.to_dict() if self.outcome == "ran" else None,
            **({"observed": self.observed} if self.observed is not None else {}),
        }


def _receipt(event: ev.HookEvent) -> dict[str, Any]:
    """`{id, event, outcome, duration_ms, message?, code?}` (the event's tag and turn left out)."""
    data = msgspec.to_builtins(event)
    return {k: v for k, v in data.items() if k not in ("type", "turn_id")}


@dataclass
class _Call:
    """The state of one call as it moves through the steps."""

    name: str
    raw_arguments: Any
    call_id: str
    source: str
    turn_id: str | None
    cancel: asyncio.Event
    tool: Tool | None = None
    arguments: Any = None
    effects: Any = None
    report: DispatchReport | None = None
    published: bool = False  # the tool_call event went out
    preview: ev.ApprovalPreview | None = None  # the preview the user approved
    shown: ev.ApprovalPreview | None = None  # the preview its tool_call event carries
    sandbox: Any = None  # builtin/bash in a sandbox: its SandboxCall (docs/sandbox.md)
    reason: str | None = None  # why it asks when no rule did (protected_path)
    dry_run: bool = False  # `raw-tui call --dry-run`: nothing reaches outside, nothing lands
    checkpoint: Any = None  # the change's checkpoint (raw_tui.checkpoints.ledger.Checkpoint)
    summary: str | None = None  # the tool's own one-line summary (tools/summary.py)
    info: Any = None  # its CallInfo for hooks, made once (its fields are settled by then)

"""What dispatch needs from hooks and panels: small protocols, so the engine parts stay apart.

raw_tui.hooks implements `ToolHooks`; raw_tui.panels implements `ToolPanels` (`PanelHost`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..bus import HookEvent


@dataclass(frozen=True)
class CallInfo:
    """One tool call as hooks see it (the payload's `tool` object is built from this)."""

    identity: str
    name: str
    call_id: str
    arguments: Any  # frozen
    effects: Any  # frozen, or None when the tool declares no effects
    has_effects: bool  # the tool declares effects (describe_effects + effects_schema)
    source: str = "model"  # "model" | "user_action"
    turn_id: str | None = None


@dataclass
class GateOutcome:
    """The result of PreToolUse hooks: `allowed`, else `code` (hook_denied | hook_error) and
    `reason` (the text of the tool result). `receipts` lists every hook that ran."""

    allowed: bool = True
    code: str | None = None
    reason: str | None = None
    receipts: list[HookEvent] = field(default_factory=list)


class ToolHooks(Protocol):
    async def pre_tool_use(self, call: CallInfo, cancel: asyncio.Event) -> GateOutcome: ...

    async def post_tool_use(self, call: CallInfo, result: dict[str, Any],
                            cancel: asyncio.Event) -> list[HookEvent]:
        """PostToolUse or PostToolUseFailure (by result["isError"]); never changes the result."""
        ...


class NoHooks:
    async def pre_tool_use(self, call: CallInfo, cancel: asyncio.Event) -> GateOutcome:
        return GateOutcome()

    async def post_tool_use(self, call, result, cancel) -> list[HookEvent]:
        return []


class ToolCallPanels(Protocol):
    """Panel access for one call: `ctx.panels` while the handler runs, then the result blocks."""

    async def update(self, panel: str, body: dict[str, Any]) -> int: ...
    def get(self, panel: str) -> tuple[int, Any]: ...

    def apply_result_blocks(self, blocks: list[dict[str, Any]]) -> list[str]:
        """Apply result panel blocks in order; returns the lines the model reads
        (rejections, at most 5; the confirmation line when only panel blocks were returned
        is added by the caller via `confirmation_lines`)."""
        ...

    def confirmation_lines(self) -> list[str]:
        """`panel ID updated (revision N): SUMMARY` for each panel updated by the result."""
        ...

    def close(self) -> None:
        """The handler returned: later updates get panel_closed_context; final frames flush."""
        ...


class ToolPanels(Protocol):
    def open_call(self, *, owner: str, declarations: list[Any], call_id: str, source: str,
                  turn_id: str | None) -> ToolCallPanels: ...

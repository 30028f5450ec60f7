"""What a handler and an effects descriptor receive as `ctx` (docs/gate.md)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol


class PanelsApi(Protocol):
    """`ctx.panels` while a handler runs (implemented by raw_tui.panels)."""

    async def update(self, panel: str, body: dict[str, Any]) -> int: ...
    def get(self, panel: str) -> tuple[int, Any]: ...


class InteractionsApi(Protocol):
    """`ctx.interactions` (implemented by raw_tui.interactions)."""

    async def request(self, *, panel: str, document: dict[str, Any],
                      timeout_ms: int | None = None) -> dict[str, Any]: ...


@dataclass
class ToolContext:
    cwd: str
    tool_call_id: str
    source: str = "model"  # "model" or "user_action"
    effects: Any = None  # frozen effects, or None when the tool declares none
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    panels: PanelsApi | None = None
    interactions: InteractionsApi | None = None
    identity: str = ""
    turn_id: str | None = None
    max_output_bytes: int = 8192  # the agent's cap: a tool may fit its own output under it
    preview: Any = None  # the approval preview the user approved (bus.ApprovalPreview), if any
    progress: Callable[..., None] | None = None  # (done, total?, message?) → a tool_progress event
    # ctx.output(text): output as it arrives → throttled tool_output events (a LiveOutput)
    output: Any = None
    # builtin/bash: the call's sandbox (raw_tui.tools.sandbox.call.SandboxCall), None when off
    sandbox: Any = None

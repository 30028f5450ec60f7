"""What dispatch needs from tools, hooks and panels: small protocols, so the engine parts
stay apart.

`Tool` is implemented by `tools.registry.ToolSpec` (a tool folder's tool: builtin/, local/,
agent/, pkg/), `acp.client_tools.AcpClientTool` (an ACP client's) and `mcp.tool.McpTool` (an
MCP server's); raw_tui.hooks implements `ToolHooks`; raw_tui.panels implements `ToolPanels`
(`PanelHost`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..protocol.bus import HookEvent

if TYPE_CHECKING:
    from ..panels.declaration import PanelDeclaration


@runtime_checkable
class Tool(Protocol):
    """One tool as dispatch, the policy, hooks, panels and the session see it."""

    identity: str  # builtin/NAME, local/NAME, agent/NAME, pkg/ALIAS/tools/NAME, mcp/..., acp:NAME
    declarations: list[PanelDeclaration]  # its panel declarations
    validator: Any  # its input schema, compiled (contract/schema.py)
    effects_validator: Any  # its effects schema, compiled; None when it declares no effects
    has_effects: bool  # it defines describe_effects and an effects schema
    has_validate_args: bool  # its entry module defines validate_args(args)
    has_preview: bool  # ... preview(args, ctx), run before it is approved
    has_summary: bool  # ... summarize(args, ctx) (tools/summary.py)
    is_mcp: bool  # an MCP server's: exposed once its server listed it (mcp/manager.py)
    warnings: list[str]  # said once when the config loads

    @property
    def name(self) -> str:
        """The model-facing name."""
        ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> Any: ...

    @property
    def effects_schema(self) -> Any: ...

    @property
    def condition_sources(self) -> Any:
        """What a rule's `when` may test: `arguments`, and `effects` for a tool with them."""
        ...

    @property
    def available(self) -> bool:
        """It can run now (an MCP tool: its server started and has not ended)."""
        ...

    @property
    def loaded(self) -> bool:
        """`module()` runs no tool code any more (imported, or there is no module)."""
        ...

    @property
    def implicit_panels(self) -> bool:
        """It may write any panel id it owns (an MCP tool that declares none)."""
        ...

    @property
    def label(self) -> str | None:
        """How a call names it when not by its name (None: by its name)."""
        ...

    def definition(self) -> dict[str, Any]:
        """What the model sees: name, description, input schema. Never panel state."""
        ...

    def module(self) -> Any:
        """Its entry module, imported at first use (None: it has none)."""
        ...

    def handler(self) -> Any:
        """`handler(args, ctx)`: what runs the call."""
        ...


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
                  turn_id: str | None, implicit: bool = False) -> ToolCallPanels: ...

    def get(self, panel: str) -> tuple[int, Any]:
        """(revision, document) of a panel by its full id (a summarize reads its own)."""
        ...

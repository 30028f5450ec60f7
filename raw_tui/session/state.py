"""The one state every part of a session works on (docs/decisions.md, "Sessions").

`Session` (session/session.py) builds it and answers commands; the turn (session/turn.py),
the model request (session/model_request.py), compaction (session/compaction.py), retry and
edit (session/rewind.py) and switching the agent or the model (session/switch.py) are
functions over it. Phases: idle → running → cancelling → idle; closing at the end.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Literal

from ..protocol import bus as ev
from ..protocol import commands as cmd
from ..protocol import errors
from ..cancel import Cancelled, unless_cancelled

if TYPE_CHECKING:
    from ..checkpoints.record import Recorder
    from ..config import Agent, Config
    from ..hooks.dispatcher import HookDispatcher
    from ..hooks.watcher import HookWatcher
    from ..interactions import Interactions
    from ..mcp.manager import McpManager
    from ..models.base import ModelProvider, Usage
    from ..panels.actions import ActionPorts
    from ..panels.host import PanelHost
    from ..protocol.redact import Redactor
    from ..tools.dispatch import Dispatcher
    from .approver import BusApprover
    from .call_ids import CallIds
    from .conversation import Conversation
    from .keeper import HistoryKeeper
    from .store import HistoryStore


Phase = Literal["idle", "running", "cancelling", "closing"]
Status = Literal["completed", "error", "cancelled", "max_steps"]  # a run_end's


def new_id(prefix: str) -> str:
    return f"{prefix}{int(time.time() * 1000):x}{secrets.token_hex(3)}"


def opt(**fields: Any) -> dict[str, Any]:
    """The fields that are not None (an event's optional fields)."""
    return {k: v for k, v in fields.items() if v is not None}


class TurnCancelled(Exception):
    pass


@dataclass(frozen=True)
class Rewind:
    """A turn replacing `from_turn` and every later one (`reason`: retry or edit)."""

    from_turn: str
    reason: Literal["retry", "edit"]


@dataclass
class TurnOutcome:
    status: Status
    code: str | None = None
    message: str | None = None


class SessionState:
    """What a session holds; `Session.__init__` sets every field."""

    # what it runs
    config: Config
    agent: Agent  # the tools, rules and hooks of the next turn, and its model
    provider: ModelProvider
    cwd: str
    info: cmd.SessionInfo
    # where its events go
    bus: ev.Bus
    redactor: Redactor  # the configuration's secrets leave no event, result or payload
    store: HistoryStore | None
    keeper: HistoryKeeper | None
    keep_empty: bool  # False: a new session nothing happened in is dropped at close
    session_id: str
    resumed: bool
    interactive: bool  # under the UI: warnings are notices, approvals are commands
    # the parts it owns
    conversation: Conversation  # what the model reads
    call_ids: CallIds
    panels: PanelHost
    plan_panel: str | None  # the panel sent as the ACP plan
    interactions: Interactions
    approver: BusApprover | None
    hooks: HookDispatcher
    watcher: HookWatcher | None
    dispatcher: Dispatcher
    checkpoints: Recorder | None
    actions: ActionPorts  # what a panel action reaches (panels/actions.py)
    mcp: McpManager
    mcp_task: asyncio.Task | None  # the MCP servers starting (session/switch.py)
    mcp_warnings: list[str]
    mcp_status: dict[str, str]  # identity -> found | missing | skipped
    # the turn
    state: Phase
    step: int  # model requests made in this turn
    turn_id: str | None  # the running turn's id
    turn_task: asyncio.Task | None
    cancel_signal: asyncio.Event  # set by cancel(): what the turn waits on stops
    notes: list[str]  # sent with the next user message (a panel action's note)
    last_usage: Usage | None
    last_stop_reason: str | None  # the last model reply's normalised stop
    # panel tool actions running now: call id -> its own cancel signal (panels/actions.py)
    running_actions: dict[str, asyncio.Event]
    actions_cancel: asyncio.Event  # set at close: stops panel tool actions
    closed: bool
    session_ended: bool  # SessionEnd hooks ran (a last turn runs them itself)

    @property
    def busy(self) -> bool:
        return self.turn_task is not None and not self.turn_task.done()

    def refuse_unless_idle(self) -> cmd.Reply | None:
        if self.closed:
            return cmd.Reply(ok=False, code=errors.CLOSED, message="the session is closed")
        if self.busy:
            return cmd.Reply(ok=False, code=errors.BUSY, message="a turn is running")
        if self.keeper is not None and self.keeper.unsaved is not None:  # session/unsaved.py
            from .unsaved import refusal

            return cmd.Reply(ok=False, code=errors.HISTORY_ERROR,
                             message=refusal(self.keeper.unsaved))
        return None

    def publish_state(self, ending_turn: str | None = None) -> None:
        state = ev.TurnState(state=self.state, step=self.step,
                             max_steps=self.agent.config.max_steps)
        if self.turn_id is not None and self.state in ("running", "cancelling"):
            state.turn_id = self.turn_id
        elif ending_turn is not None:
            state.turn_id = ending_turn
        self.bus.publish(state)

    def notice(self, message: str, turn_id: str | None = None) -> None:
        self.bus.publish(ev.Notice(level="info", message=message, **opt(turn_id=turn_id)))

    def warn(self, message: str) -> None:
        """A warning: a notice under the UI; one line on stderr otherwise (a headless run's
        stdout carries only its output)."""
        if self.interactive:
            self.bus.publish(ev.Notice(level="warning", message=message))  # redacted there
        else:
            import sys

            from ..protocol.termsafe import escape_controls

            line = escape_controls(self.redactor.text(message), keep_lines=False)
            print(f"raw-tui: warning: {line}", file=sys.stderr)

    async def unless_cancelled(self, coro: Awaitable[Any]) -> Any:
        """`coro`, or TurnCancelled as soon as the turn is cancelled."""
        try:
            return await unless_cancelled(coro, self.cancel_signal)  # closes the HTTP stream too
        except Cancelled:
            raise TurnCancelled from None

"""One ACP session: a raw-tui Session seen through its facade.

Bus events become client messages, sent in order by one sender task; the client's answers
(permission, forms) come back as the same commands a UI sends (`ApprovalAnswer`,
`FormAnswer`, `FormCancel`). The engine decides everything: the client only answers what the
gate asks.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, Callable

import msgspec

from ..protocol import bus as ev
from ..protocol import commands as cmd
from . import updates
from .handshake import ClientFlags
from .tool_view import ToolView

if TYPE_CHECKING:
    from ..panels.declaration import PanelDeclaration

log = logging.getLogger("raw_tui.acp")


class SessionBridge:
    """`conn` is the SDK's low-level JSON-RPC `Connection` (`send_notification`,
    `send_request` with wire JSON)."""

    def __init__(self, session: Any, conn: Any, flags: ClientFlags,
                 declaration: Callable[[str], PanelDeclaration | None]) -> None:
        self.session = session
        self.conn = conn
        self.flags = flags
        self.id: str = session.info.session_id
        self.cwd: str = session.info.cwd
        self.declaration = declaration  # full panel id -> its PanelDeclaration, or None
        # (method, params) notifications, or (None, fn): fn() runs in order with them
        self.outbox: deque[tuple[str | None, Any]] = deque()
        self._wake: asyncio.Future | None = None  # the sender waits on it when idle
        self.waiting: dict[str, asyncio.Task] = {}  # call or request id -> a question to the client
        # call id -> its approval request while the engine waits for it: call ids come from
        # the model and may repeat, so an answer counts only for the request it was asked for
        self.asking: dict[str, ev.ApprovalRequest] = {}
        self.panel_states: dict[str, ev.PanelState] = {}
        self.shown: dict[str, list] = {}  # call id -> its tool_call's diff content
        self.last_end: ev.RunEnd | None = None
        self.delivery_error: Exception | None = None
        self._marks: set[asyncio.Future] = set()  # flush() calls waiting
        self.live = True  # false while history is replayed (load): no questions, no plans
        self.state = "idle"  # the session's, from turn_state events
        self.tool_view = ToolView()  # what `_raw/session/configure` selects from
        self._sender = asyncio.create_task(self._send_loop())
        self._unsubscribe = session.bus.subscribe(self.on_event)

    # events -> outbox ------------------------------------------------------------------------
    def on_event(self, event: ev.Event) -> None:
        """A bus subscriber: never blocks, never raises; queues what the client gets."""
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _update(self, update: Any) -> None:
        self._put(("session/update", {"sessionId": self.id, "update": update}))

    def _later(self, fn: Callable[[], None]) -> None:
        """Run `fn` from the sender, after everything queued before it was sent."""
        self._put((None, fn))

    def _put(self, item: tuple[str | None, Any]) -> None:
        self.outbox.append(item)
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def _on_AssistantDelta(self, event: ev.AssistantDelta) -> None:
        self._update(updates.message_text(event.text))

    def _on_HookEvent(self, event: ev.HookEvent) -> None:
        self._update(updates.thought(event))

    def _on_PanelReceipt(self, event: ev.PanelReceipt) -> None:
        self._update(updates.thought(event))

    def _on_ToolCall(self, event: ev.ToolCall) -> None:
        # in the gate from now on; an `ask` sets it back to pending in its permission request
        update = updates.tool_call(event, self.cwd)
        if "content" in update:
            self.shown[event.call_id] = update["content"]
        self._update(update)
        if self.live:
            self._update(updates.in_progress(event.call_id))

    def _on_ApprovalRequest(self, event: ev.ApprovalRequest) -> None:
        if self.live:
            self.asking[event.call_id] = event
            self._later(lambda: self._ask_permission(event))

    def _ask_permission(self, event: ev.ApprovalRequest) -> None:
        if self.asking.get(event.call_id) is event:  # not settled while it waited to be sent
            self._ask(event.call_id, self._permission(event))

    def _on_ApprovalDecision(self, event: ev.ApprovalDecision) -> None:
        self.asking.pop(event.call_id, None)
        self._stop_waiting(event.call_id)
        if event.allow:
            self._update(updates.in_progress(event.call_id))

    def _on_ToolResultEvent(self, event: ev.ToolResultEvent) -> None:
        self.asking.pop(event.call_id, None)
        self._stop_waiting(event.call_id)
        self._update(updates.tool_result(event, self.shown.pop(event.call_id, None)))

    def _on_PanelState(self, event: ev.PanelState) -> None:
        self.panel_states[event.panel] = event
        if self.live:
            self.send_panel(event)

    def _on_InteractionRequest(self, event: ev.InteractionRequest) -> None:
        self._later(lambda: self._ask(event.request_id, self._interaction(event)))

    def _on_InteractionSettled(self, event: ev.InteractionSettled) -> None:
        self._stop_waiting(event.request_id)

    def _on_TurnState(self, event: ev.TurnState) -> None:
        if self.live:
            self.state = event.state

    def _on_RunEnd(self, event: ev.RunEnd) -> None:
        self.last_end = event

    def _on_Notice(self, event: ev.Notice) -> None:
        """A warning (an MCP server that could not start or stopped) reaches the user as a
        thought; other notices are the UI's."""
        if self.live and event.level == "warning":
            self._update(updates.warning(event.message))

    def _on_Compaction(self, event: ev.Compaction) -> None:
        """Older turns were summarised (`/compact`, `_raw/session/compact`, or the agent's
        `compact.trigger_tokens`); an empty summary is a `/clear`, said by nothing here."""
        if event.summary:
            self._update(updates.compacted("compacted"))

    def _on_UserMessage(self, event: ev.UserMessage) -> None:
        if not self.live:  # replayed history shows the user's side too
            self._update(updates.user_text(event.text))

    def say(self, update: dict[str, Any]) -> None:
        """Send `update` (a thought of the agent's own) in order with the events'."""
        self._update(update)

    @property
    def idle(self) -> bool:
        """No turn (or compaction) runs or starts: the session takes a configuration."""
        return self.state == "idle" and not self.session.busy

    def send_panel(self, event: ev.PanelState) -> None:
        declaration = self.declaration(event.panel)
        if declaration is not None and declaration.acp_plan:
            self._update(updates.plan(event.document))
        if self.flags.panels_v2:
            self._put(("_raw/panel/update", {
                "sessionId": self.id, "panel": event.panel, "owner": event.owner,
                "revision": event.revision, "closed": event.document is None,
                "declaration": _declaration_json(declaration), "document": event.document,
            }))

    def _stop_waiting(self, key: str) -> None:
        task = self.waiting.pop(key, None)
        if task is not None and not task.done():
            task.cancel()

    # the sender ----------------------------------------------------------------------------
    async def _send_loop(self) -> None:
        while True:
            if not self.outbox:
                self._wake = asyncio.get_running_loop().create_future()
                await self._wake
                continue
            method, params = self.outbox.popleft()
            try:
                if method is None:
                    params()
                elif self.delivery_error is None:
                    await self.conn.send_notification(method, params)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # the client went away or refused a message
                log.warning("session %s: delivery failed: %s", self.id, err)
                if self.delivery_error is None:
                    self.delivery_error = err
                    await self.session.handle(cmd.Cancel())

    def _ask(self, key: str, coro) -> None:
        """Ask the client in its own task: the sender goes on (a cancel still gets through)."""
        task = asyncio.create_task(coro)
        self.waiting[key] = task
        task.add_done_callback(lambda t: self.waiting.pop(key, None)
                               if self.waiting.get(key) is t else None)

    async def flush(self) -> None:
        """Wait until everything queued so far reached the client."""
        mark = asyncio.get_running_loop().create_future()
        self._marks.add(mark)
        self._later(lambda: mark.done() or mark.set_result(None))
        try:
            await mark
        finally:
            self._marks.discard(mark)

    # questions to the client -----------------------------------------------------------------
    async def _permission(self, event: ev.ApprovalRequest) -> None:
        """`session/request_permission`; only `selected` + `allow` allows."""
        allow = False
        try:
            response = await self.conn.send_request(
                "session/request_permission",
                updates.permission_request(self.id, event, self.cwd))
            allow = updates.allowed(response)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # an error answer is a denial
            log.info("session %s: permission for %s failed: %s", self.id, event.call_id, err)
        if self.asking.get(event.call_id) is not event:
            return  # that request ended meanwhile: the answer is for nothing the engine waits on
        await self.session.handle(cmd.ApprovalAnswer(call_id=event.call_id, allow=allow))

    async def _interaction(self, event: ev.InteractionRequest) -> None:
        """`_raw/interaction/request` (needs `interactions`); the client replies `{action:
        "submit", answers}` or `{action: "cancel"}`. Anything else, or an answer the form
        refuses, cancels the request."""
        state = self.panel_states.get(event.panel)
        params = {"sessionId": self.id, "requestId": event.request_id, "panel": event.panel,
                  "revision": state.revision if state else None,
                  "document": state.document if state else None}
        reply: Any = None
        try:
            reply = await self.conn.send_request("_raw/interaction/request", params)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            log.info("session %s: interaction %s failed: %s", self.id, event.request_id, err)
        if isinstance(reply, dict) and reply.get("action") == "submit" \
                and isinstance(reply.get("answers"), dict):
            answer = await self.session.handle(cmd.FormAnswer(
                request_id=event.request_id, answers=reply["answers"],
                idempotency_key=reply.get("idempotencyKey")
                if isinstance(reply.get("idempotencyKey"), str) else None))
            if answer.ok:
                return
            log.info("session %s: answer refused: %s", self.id, answer.message)
        await self.session.handle(cmd.FormCancel(request_id=event.request_id))

    # replay ----------------------------------------------------------------------------------
    def replay(self, history: list[ev.Event]) -> None:
        """Queue a saved session's history as updates (no questions are asked again), then the
        current state of each open panel, once."""
        self.live = False
        try:
            for event in history:
                if not isinstance(event, (ev.ApprovalRequest, ev.InteractionRequest)):
                    self.on_event(event)
        finally:
            self.live = True
        self.send_current_panels()

    def restore_panels(self, history: list[ev.Event]) -> None:
        for event in history:
            if isinstance(event, ev.PanelState):
                self.panel_states[event.panel] = event

    def send_current_panels(self) -> None:
        for state in self.panel_states.values():
            if state.document is not None:
                self.send_panel(state)

    async def close(self) -> None:
        self._unsubscribe()
        for task in list(self.waiting.values()):
            task.cancel()
        self._sender.cancel()
        await asyncio.gather(self._sender, *self.waiting.values(), return_exceptions=True)
        for mark in list(self._marks):  # nothing more will be sent: no one waits for it
            if not mark.done():
                mark.set_result(None)


# the event table: what each event type queues for the client (the others queue nothing)
_HANDLERS: dict[type[ev.Event], Callable[[SessionBridge, Any], None]] = {
    ev.AssistantDelta: SessionBridge._on_AssistantDelta,
    ev.HookEvent: SessionBridge._on_HookEvent,
    ev.PanelReceipt: SessionBridge._on_PanelReceipt,
    ev.ToolCall: SessionBridge._on_ToolCall,
    ev.ApprovalRequest: SessionBridge._on_ApprovalRequest,
    ev.ApprovalDecision: SessionBridge._on_ApprovalDecision,
    ev.ToolResultEvent: SessionBridge._on_ToolResultEvent,
    ev.PanelState: SessionBridge._on_PanelState,
    ev.InteractionRequest: SessionBridge._on_InteractionRequest,
    ev.InteractionSettled: SessionBridge._on_InteractionSettled,
    ev.TurnState: SessionBridge._on_TurnState,
    ev.RunEnd: SessionBridge._on_RunEnd,
    ev.UserMessage: SessionBridge._on_UserMessage,
    ev.Notice: SessionBridge._on_Notice,
    ev.Compaction: SessionBridge._on_Compaction,
}


def _declaration_json(declaration: Any) -> Any:
    if declaration is None:
        return None
    try:
        return msgspec.to_builtins(declaration)
    except TypeError:
        from dataclasses import asdict, is_dataclass

        return asdict(declaration) if is_dataclass(declaration) else None

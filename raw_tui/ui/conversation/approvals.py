"""Approvals: the calls waiting for your answer, oldest first, shown one at a time in the
approval modal (`screens/approval.py`) by one worker. `pending` alone says what waits: a call
leaves it when it is answered here, decided elsewhere (a cancel, another client) or ended,
and a modal open for it then closes without answering."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ...protocol import bus as ev
from ...protocol.commands import ApprovalAnswer
from .router import live_only

if TYPE_CHECKING:
    from . import ConversationFeatures


class Approvals:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.screen = conversation.screen
        self.pending: list[ev.ApprovalRequest] = []  # oldest first
        self.modal: Any = None  # the ApprovalScreen open now
        self.arrived = asyncio.Event()  # a request was added to `pending`

    def routes(self) -> dict[type, Any]:
        return {ev.ApprovalRequest: self.approval_request,
                ev.ApprovalDecision: self.ended, ev.ToolResultEvent: self.ended}

    def start(self) -> None:
        """The worker (its modal's imports: after the first frame)."""
        self.screen.run_worker(self.worker(), group="approvals", exclusive=True)

    async def worker(self) -> None:
        from ..screens.approval import ApprovalScreen

        app = self.screen.app
        while True:
            if not self.pending:
                self.arrived.clear()
                await self.arrived.wait()
                continue
            request = self.pending[0]
            self.modal = ApprovalScreen(request, waiting=len(self.pending) - 1)
            allow = await app.push_screen_wait(self.modal)
            self.modal = None
            if allow is not None and any(r is request for r in self.pending):
                await app.send(ApprovalAnswer(call_id=request.call_id, allow=allow))
            self.drop(request.call_id)

    @live_only  # only a live request waits for an answer
    async def approval_request(self, event: ev.ApprovalRequest, live: bool) -> None:
        self.pending.append(event)
        self.conversation.status.count_pending()
        self.arrived.set()
        self.show_waiting()

    async def ended(self, event: ev.ApprovalDecision | ev.ToolResultEvent, live: bool) -> None:
        self.drop(event.call_id)

    def drop(self, call_id: str) -> None:
        """The call is no longer waiting: a modal open for it closes without answering."""
        before = len(self.pending)
        self.pending = [r for r in self.pending if r.call_id != call_id]
        if self.modal is not None and self.modal.request.call_id == call_id:
            self.modal.dismiss(None)
        self.show_waiting()
        if len(self.pending) != before:
            self.conversation.status.count_pending()

    def show_waiting(self) -> None:
        if self.modal is not None:
            self.modal.set_waiting(max(len(self.pending) - 1, 0))

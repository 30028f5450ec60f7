"""Tool calls: one row in the chat per call (`widgets/tool_call.py`), found by its call id,
which draws the call's events — the call, its approval's request and decision, its progress
and output while it runs, its result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol import bus as ev
from .router import live_only
from .transcript import clears

if TYPE_CHECKING:  # imported on the first tool call: the first frame draws none
    from ..widgets.tool_call import ToolCallView
    from . import ConversationFeatures


class ToolCalls:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.views: dict[str, ToolCallView] = {}

    def routes(self) -> dict[type, Any]:
        return {ev.ToolCall: self.tool_call, ev.ApprovalRequest: self.approval_request,
                ev.ApprovalDecision: self.approval_decision, ev.ToolResultEvent: self.tool_result,
                ev.ToolProgress: self.tool_progress, ev.ToolOutput: self.tool_output,
                ev.RunEnd: self.run_end, ev.Compaction: self.compaction}

    async def view(self, call_id: str, identity: str = "", name: str = "", *,
                   new_call: bool = False) -> ToolCallView:
        """The row of `call_id`. A `tool_call` (`new_call`) for an id whose row already shows
        a call starts a row of its own: a history saved before calls had keys of their own
        (docs/decisions.md) may name two calls with one id."""
        view = self.views.get(call_id)
        transcript = self.conversation.transcript
        if new_call and view is not None and view.arguments is not None:
            view = None
        if view is None or not transcript.chat.holds(view):
            from ..widgets.tool_call import ToolCallView

            view = ToolCallView(call_id, identity, name)
            self.views[call_id] = view
            await transcript.add(view)
        return view

    async def tool_call(self, event: ev.ToolCall, live: bool) -> None:
        await self.conversation.transcript.finish_stream()
        view = await self.view(event.call_id, event.identity, event.name, new_call=True)
        view.tool_call(event, live=live)

    async def approval_request(self, event: ev.ApprovalRequest, live: bool) -> None:
        await self.conversation.transcript.finish_stream()
        (await self.view(event.call_id, event.identity, event.name)).approval_request(event)

    async def approval_decision(self, event: ev.ApprovalDecision, live: bool) -> None:
        (await self.view(event.call_id)).approval_decision(event, live=live)

    async def tool_result(self, event: ev.ToolResultEvent, live: bool) -> None:
        (await self.view(event.call_id)).tool_result(event)

    @live_only  # a finished call's progress is of no interest when replayed
    async def tool_progress(self, event: ev.ToolProgress, live: bool) -> None:
        (await self.view(event.call_id)).tool_progress(event)

    @live_only  # never stored; a replay shows the result
    async def tool_output(self, event: ev.ToolOutput, live: bool) -> None:
        (await self.view(event.call_id)).tool_output(event)

    async def run_end(self, event: ev.RunEnd, live: bool) -> None:
        for view in self.views.values():  # nothing runs once the turn is over
            view.stop_running()

    async def compaction(self, event: ev.Compaction, live: bool) -> None:
        if clears(event):
            self.views.clear()

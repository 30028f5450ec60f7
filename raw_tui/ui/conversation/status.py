"""The session's state on the status line: the agent and the model, the turn's state and
step, the context used, the hooks' reload, what waits for an answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol import bus as ev
from .router import live_only

if TYPE_CHECKING:
    from . import ConversationFeatures


class SessionStatus:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.screen = conversation.screen

    def routes(self) -> dict[type, Any]:
        return {ev.SessionStart: self.session_start, ev.TurnState: self.turn_state,
                ev.HooksReload: self.hooks_reload, ev.TokenUsage: self.usage,
                ev.AgentModel: self.agent_model, ev.RunEnd: self.run_end}

    @property
    def line(self) -> Any:
        return self.screen.status_line

    def count_pending(self) -> None:
        """The approvals and the questions waiting for an answer."""
        self.line.set_pending(approvals=len(self.conversation.approvals.pending),
                              questions=len(self.conversation.forms.questions))

    async def session_start(self, event: ev.SessionStart, live: bool) -> None:
        self.line.session_start(event)
        self.screen.app.title = f"raw-tui · {event.agent}"

    @live_only
    async def turn_state(self, event: ev.TurnState, live: bool) -> None:
        self.line.turn_state(event)

    async def hooks_reload(self, event: ev.HooksReload, live: bool) -> None:
        notice = self.line.hooks_reload(event)
        if not event.ok:
            await self.conversation.transcript.add_notice(notice, "error")

    @live_only
    async def usage(self, event: ev.TokenUsage, live: bool) -> None:
        self.line.usage(event)

    async def agent_model(self, event: ev.AgentModel, live: bool) -> None:
        self.line.switch(event.agent, event.model)
        self.screen.app.switched(event.agent, event.model)
        await self.conversation.transcript.add_notice(
            f"from now on: agent {event.agent} · model {event.model}", "info")

    async def run_end(self, event: ev.RunEnd, live: bool) -> None:
        self.line.run_end(event)

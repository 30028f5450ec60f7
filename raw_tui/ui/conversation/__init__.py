"""The conversation on the main screen, one module per feature: the transcript (rows,
streaming, notices, rewind, `/clear`), undo (a turn's files put back), tool calls,
approvals, forms, panels, prompts (the composer's, queued, edited, retried) and the status
line's state. Each feature handles the engine events it draws (its `routes()`); one router
(`router.py`) hands every event to them, in the order listed here. The screen
(`screens/main.py`) lays them out and holds the keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol import bus as ev
from .approvals import Approvals
from .forms import Forms
from .panels import Panels
from .prompts import Prompts
from .router import Router
from .status import SessionStatus
from .tool_calls import ToolCalls
from .transcript import Transcript
from .undo import UndoFlow

if TYPE_CHECKING:
    from ..messages import Carried
    from ..screens.main import MainScreen


UNDRAWN = (ev.FileChanges,)  # what a turn changed (an undo is drawn: undo.py)


class ConversationFeatures:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.prompts = Prompts(self)  # first: an edited prompt's rewind ends the edit
        self.transcript = Transcript(self)
        self.undo = UndoFlow(self)  # its row: after the transcript's stream ends
        self.status = SessionStatus(self)
        self.tool_calls = ToolCalls(self)
        self.approvals = Approvals(self)  # after the call's row has drawn the request
        self.panels = Panels(self)
        self.forms = Forms(self)  # after the panel is drawn: its form waits there
        self.router = Router([self.prompts, self.transcript, self.undo, self.status,
                              self.tool_calls, self.approvals, self.panels, self.forms],
                             self.transcript.draw_error, undrawn=UNDRAWN)

    async def route(self, event: Carried, live: bool) -> None:
        await self.router.route(event, live)

    def activate(self, target: Any) -> None:
        """Enter on a row of the chat or the panels: a tool call expands, a prompt of yours
        is edited, the hidden rows open, a waiting form takes the focus, else the panel's
        actions at the cursor."""
        from ..widgets.chat_items import UserMessageView
        from ..widgets.chat_view import HiddenRow
        from ..widgets.tool_call import ToolCallView

        widget = target.widget
        if isinstance(widget, ToolCallView):
            widget.toggle()
        elif isinstance(widget, UserMessageView):
            self.prompts.start_editing(widget)
        elif isinstance(widget, HiddenRow):
            self.screen.action_transcript()
        elif target.panel is not None:
            form = self.forms.waiting_at(target)
            if form is not None:
                form.focus_first()
            else:
                self.panels.open_actions(target)

"""Prompts: what the composer sends — a prompt, or an earlier prompt edited and resent in
its place — the prompts queued while a turn runs (sent one by one as the session goes idle),
and a retry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol import bus as ev
from ...protocol.commands import EditPrompt, Prompt, Retry
from ...protocol.errors import BUSY
from .router import live_only

if TYPE_CHECKING:
    from ..widgets.composer import Composer
    from ..widgets.chat_items import UserMessageView  # with the first row: the frame has none
    from . import ConversationFeatures


class Prompts:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.screen = conversation.screen
        self.editing: UserMessageView | None = None  # the prompt the composer edits

    def routes(self) -> dict[type, Any]:
        return {ev.TurnState: self.turn_state, ev.TurnRewind: self.turn_rewind}

    @property
    def queue(self) -> Any:
        return self.screen.prompt_queue

    async def submitted(self, message: Composer.Submitted) -> None:
        screen, editing = self.screen, self.editing
        if editing is not None and editing.turn_id is not None:
            command: Any = EditPrompt(turn_id=editing.turn_id, text=message.text)
        elif self.queue.prompts:  # behind the ones queued before it
            self.queue.add(message.text)
            return
        else:
            command = Prompt(text=message.text)
        # an edit may restore its turns' files (conversation/undo.py)
        reply = await self.conversation.undo.send_rewind(command, notify=False)
        if not reply.ok and reply.code == BUSY and isinstance(command, Prompt):
            self.queue.add(message.text)  # a turn runs: sent when it ends
            if screen.status_line.status.state == "idle":  # ... it ended meanwhile
                screen.run_worker(self.send_queued(), group="queued", exclusive=True)
            return
        if not reply.ok:
            screen.notify(reply.message or reply.code or "refused", severity="error")
        else:
            screen.show_chat()
        if not reply.ok and not message.composer.text:
            message.composer.set_draft(message.text)
        elif reply.ok and editing is not None:
            self.stop_editing()

    async def send_queued(self) -> None:
        """The session is idle: the oldest queued prompt goes out (the next one when this
        turn ends in turn)."""
        text = self.queue.pop_first()
        if text is None:
            return
        reply = await self.screen.app.send(Prompt(text=text), notify=False)
        if not reply.ok and reply.code == BUSY:
            self.queue.put_back(text)
        elif not reply.ok:  # refused for good: back to the composer, not lost
            self.screen.notify(f"queued prompt not sent: {reply.message or reply.code}",
                               severity="error")
            self.draft_before(text)

    def take_back_queued(self) -> bool:
        """Esc with prompts queued: the newest goes back into the composer, ahead of what is
        typed there. Whether there was one."""
        text = self.queue.take_last()
        if text is None:
            return False
        self.draft_before(text)
        return True

    def draft_before(self, text: str) -> None:
        composer = self.screen.composer
        draft = composer.text
        composer.set_draft(text + ("\n" + draft if draft else ""))

    # retry and edit -----------------------------------------------------------------------
    def start_editing(self, view: UserMessageView) -> None:
        """The composer takes `view`'s prompt; Enter resends it in its place."""
        if view.turn_id is None:
            self.screen.notify("this prompt cannot be edited (no turn id)", severity="warning")
            return
        self.editing = view
        self.screen.show_edit_strip(True)
        self.screen.composer.set_draft(view.text)

    def stop_editing(self) -> None:
        self.editing = None
        self.screen.show_edit_strip(False)

    def edit_last(self) -> None:
        prompts = self.screen.chat.user_messages()
        if prompts:
            self.start_editing(prompts[-1])
        else:
            self.screen.notify("no prompt to edit", timeout=2)

    async def retry(self) -> None:
        # its turn's files may be restored too (conversation/undo.py)
        reply = await self.conversation.undo.send_rewind(Retry())
        if reply.ok and self.editing is not None:
            self.stop_editing()
            self.screen.composer.clear()

    # the events ---------------------------------------------------------------------------
    @live_only
    async def turn_state(self, event: ev.TurnState, live: bool) -> None:
        if event.state == "idle" and self.queue.prompts:
            self.screen.run_worker(self.send_queued(), group="queued", exclusive=True)

    async def turn_rewind(self, event: ev.TurnRewind, live: bool) -> None:
        """The prompt being edited was replaced (by this edit, or a retry): editing ends."""
        view = self.conversation.transcript.prompt_of(event.from_turn)
        if self.editing is not None and self.editing is view:
            self.stop_editing()

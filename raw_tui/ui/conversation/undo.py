"""Undo (docs/checkpoints.md): the files of a turn and the later ones put back, previewed
first. The UI reaches the session only through the session command `Undo`: a dry run (its
report carries each file's diff) fills the preview (screens/undo_preview.py); the choice
sends the real one; the session's `undo` event draws the result in the chat (`UndoRow`,
widgets/chat_items.py).

Surfaces: `u` on a turn in the chat (the prompt at or above the cursor), the palette's
`Undo changes of this turn…` (`UndoCommands`), and retry / edit-and-resend (prompts.py),
which offer to restore the files with the conversation (`UndoFlow.send_rewind`) when the
turns they replace changed files. One flow at a time: `UndoFlow.busy`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ...protocol import bus as ev
from ...protocol.commands import Command, EditPrompt, Reply, Retry, Undo
from ...protocol.errors import CANCELLED, NOTHING_TO_UNDO

if TYPE_CHECKING:
    from ..widgets.chat_items import UserMessageView
    from . import ConversationFeatures

PALETTE_TITLE = "Undo changes of this turn…"


def _has_changes(reply: Reply) -> bool:
    report = reply.report if reply.ok else None
    return bool(isinstance(report, dict) and report.get("files"))


class UndoFlow:
    def __init__(self, conversation: ConversationFeatures) -> None:
        self.conversation = conversation
        self.screen = conversation.screen
        self.busy = False  # one flow at a time (a second `u` while a preview loads: nothing)

    def routes(self) -> dict[type, Any]:
        return {ev.TurnUndo: self.turn_undo}

    # the turn -----------------------------------------------------------------------------
    def turn_at_cursor(self) -> UserMessageView | None:
        """The prompt of the turn the chat's cursor is in: the prompt at or above it; None
        without a cursor (or above the first prompt)."""
        from ..widgets.chat_items import UserMessageView

        chat = self.screen.chat
        widget = chat.cursor.widget if chat.cursor is not None else None
        if widget is None:
            return None
        last = None
        for row in chat.rows():
            if isinstance(row, UserMessageView):
                last = row
            if row is widget:
                return last
        return None

    # the session --------------------------------------------------------------------------
    async def _dry_run(self, turn_id: str | None) -> Reply:
        return await self.screen.app.send(Undo(turn_id=turn_id, dry_run=True), notify=False)

    async def _undo(self, turn_id: str | None, overwrite: bool) -> Reply:
        app = self.screen.app
        reply = await app.send(Undo(turn_id=turn_id, overwrite=overwrite), notify=False)
        if not reply.ok:
            app.notify(f"undo failed: {reply.message or reply.code}", severity="error")
        elif reply.message:  # "not undoable: turn 3 ran ..."
            app.notify(reply.message, severity="warning", timeout=6)
        return reply

    async def _preview(self, report: dict, prompt: str, rewind: str | None) -> str | None:
        """The preview's choice. Waiting for a modal needs a worker: from a key's action or
        a message handler (a retry, an edit sent) it is waited for in one, which the handler
        awaits (the modal's answer does not go through the screen it blocks)."""
        from textual.worker import NoActiveWorker, get_current_worker

        from ..screens.undo_preview import UndoPreview

        app = self.screen.app
        preview = UndoPreview(report, prompt=prompt, rewind=rewind)
        try:
            get_current_worker()
        except NoActiveWorker:
            worker = app.run_worker(app.push_screen_wait(preview), group="undo-preview")
            return await worker.wait()
        return await app.push_screen_wait(preview)

    # `u` and the palette ------------------------------------------------------------------
    async def undo_turn(self, view: UserMessageView | None = None) -> None:
        """Preview the undo of `view`'s turn (a prompt row; None: the latest turn that
        changed files) and every later one; on confirmation, run it."""
        app = self.screen.app
        if self.busy:
            return
        self.busy = True
        try:
            turn_id = view.turn_id if view is not None else None
            if view is not None and turn_id is None:
                app.notify("this turn cannot be undone (no turn id)", severity="warning")
                return
            dry = await self._dry_run(turn_id)
            if not _has_changes(dry):
                app.notify(dry.message or "nothing to undo", timeout=4,
                           severity="warning" if dry.ok or dry.code == NOTHING_TO_UNDO
                           else "error")
                return
            choice = await self._preview(dry.report, view.text if view is not None else "", None)
            if choice is not None:
                await self._undo(turn_id, overwrite=choice == "overwrite")
        finally:
            self.busy = False

    def start(self, view: UserMessageView | None) -> None:
        """Run the flow for `view`'s turn in a worker of the screen."""
        self.screen.run_worker(self.undo_turn(view), group="undo")

    def at_cursor(self) -> None:
        """`u` in the chat."""
        self.start(self.turn_at_cursor())

    # retry and edit -----------------------------------------------------------------------
    async def send_rewind(self, command: Command, *, notify: bool = True) -> Reply:
        """`command` to the session; a Retry or an EditPrompt whose turns changed files
        first offers to restore them (the preview, in its rewind form): restored, then sent;
        kept, sent; cancelled, not sent (a Reply with code "cancelled")."""
        app, chat = self.screen.app, self.screen.chat
        if isinstance(command, Retry):
            prompts = chat.user_messages()
            view, rewind = (prompts[-1] if prompts else None), "retry"
        elif isinstance(command, EditPrompt):
            view = next((v for v in chat.user_messages() if v.turn_id == command.turn_id),
                        None)
            rewind = "edit"
        else:
            return await app.send(command, notify=notify)
        turn_id = view.turn_id if view is not None else None
        if turn_id is None or self.busy:
            return await app.send(command, notify=notify)
        self.busy = True
        try:
            dry = await self._dry_run(turn_id)
            if _has_changes(dry):
                choice = await self._preview(dry.report, view.text, rewind)
                if choice is None:
                    what = "retry" if rewind == "retry" else "edited prompt"
                    reply = Reply(ok=False, code=CANCELLED, message=f"{what} not sent (Esc)")
                    if notify:
                        app.notify(reply.message, timeout=3)
                    return reply
                if choice != "keep":
                    undone = await self._undo(turn_id, overwrite=choice == "overwrite")
                    if not undone.ok:
                        return Reply(ok=False, code=undone.code, message=undone.message)
        finally:
            self.busy = False
        return await app.send(command, notify=notify)

    # the result in the chat ---------------------------------------------------------------
    async def turn_undo(self, event: ev.TurnUndo, live: bool) -> None:
        """The session's `undo` event (live or replayed): a row at the end of the chat."""
        from ..widgets.chat_items import UndoRow

        await self.conversation.transcript.finish_stream()
        await self.screen.chat.add(UndoRow(event, self.screen.app.info.cwd))
        if live:  # the result shows, though the cursor had scrolled the chat up to the turn
            self.screen.chat.anchor()


class UndoCommands(Provider):
    """The palette's `Undo changes of this turn…`: the turn of the chat's cursor, else the
    latest turn that changed files."""

    def _command(self) -> tuple[str, Any]:
        from ..screens.main import MainScreen

        main = next((s for s in reversed(self.app.screen_stack) if isinstance(s, MainScreen)),
                    None)
        if main is None:
            return "", None
        flow = main.conversation.undo
        view = flow.turn_at_cursor()
        if view is not None:
            first = (view.text.splitlines() or [""])[0]
            help_text = (f"Restore the files as they were before “{first[:50]}” (this turn "
                         "and later ones changed them); a preview first (u on a turn in the "
                         "chat)")
        else:
            help_text = ("Restore the files the latest turn that changed files changed; a "
                         "preview first (u on a turn in the chat)")
        return help_text, lambda: flow.start(view)

    async def discover(self) -> Hits:
        help_text, run = self._command()
        if run is not None:
            yield DiscoveryHit(PALETTE_TITLE, run, help=help_text)

    async def search(self, query: str) -> Hits:
        help_text, run = self._command()
        if run is None:
            return
        matcher = self.matcher(query)
        score = matcher.match(PALETTE_TITLE)
        if score > 0:
            yield Hit(score, matcher.highlight(PALETTE_TITLE), run, text=PALETTE_TITLE,
                      help=help_text)

"""Undo in the UI (docs/checkpoints.md): the files of a turn and the later ones put back,
previewed first. The UI reaches the session only through the session command `Undo`: a dry
run (its report carries each file's diff) fills the preview (screens/undo_preview.py); the
choice sends the real one; the session's `undo` event draws the result in the chat
(`UndoRow`).

Surfaces: `u` on a turn in the chat (the prompt at or above the cursor), the palette's
`Undo changes of this turn…` (`UndoCommands`), and retry / edit-and-resend, which offer to
restore the files with the conversation (`send_rewind`) when the turns they replace changed
files."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..protocol import bus as ev
from ..protocol.commands import Command, EditPrompt, Reply, Retry, Undo
from ..protocol.errors import CANCELLED, NOTHING_TO_UNDO
from .preview import relative_to
from .widgets.safe import SafeStatic

PALETTE_TITLE = "Undo changes of this turn…"


# the turn ---------------------------------------------------------------------------------
def turn_at_cursor(screen: Any) -> Any:
    """The prompt (a `UserMessageView`) of the turn the chat's cursor is in: the prompt at
    or above it; None without a cursor (or above the first prompt)."""
    from .widgets.chat_items import UserMessageView

    chat = screen.chat
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


def _busy(app: Any) -> bool:
    """One undo flow at a time (a second `u` while the first preview loads does nothing)."""
    return bool(getattr(app, "_raw_undo_flow", False))


def _set_busy(app: Any, value: bool) -> None:
    app._raw_undo_flow = value


async def _dry_run(app: Any, turn_id: str | None) -> Reply:
    return await app.send(Undo(turn_id=turn_id, dry_run=True), notify=False)


def _has_changes(reply: Reply) -> bool:
    report = reply.report if reply.ok else None
    return bool(isinstance(report, dict) and report.get("files"))


async def _preview(app: Any, report: dict, prompt: str, rewind: str | None) -> str | None:
    """The preview's choice. Waiting for a modal needs a worker: from a key's action or a
    message handler (a retry, an edit sent) it is waited for in one, which the handler
    awaits (the modal's answer does not go through the screen it blocks)."""
    from textual.worker import NoActiveWorker, get_current_worker

    from .screens.undo_preview import UndoPreview

    preview = UndoPreview(report, prompt=prompt, rewind=rewind)
    try:
        get_current_worker()
    except NoActiveWorker:
        worker = app.run_worker(app.push_screen_wait(preview), group="undo-preview")
        return await worker.wait()
    return await app.push_screen_wait(preview)


async def _undo(app: Any, turn_id: str | None, overwrite: bool) -> Reply:
    reply = await app.send(Undo(turn_id=turn_id, overwrite=overwrite), notify=False)
    if not reply.ok:
        app.notify(f"undo failed: {reply.message or reply.code}", severity="error")
    elif reply.message:  # "not undoable: turn 3 ran ..."
        app.notify(reply.message, severity="warning", timeout=6)
    return reply


# `u` and the palette ----------------------------------------------------------------------
async def undo_turn(screen: Any, view: Any = None) -> None:
    """Preview the undo of `view`'s turn (a prompt row; None: the latest turn that changed
    files) and every later one; on confirmation, run it."""
    app = screen.app
    if _busy(app):
        return
    _set_busy(app, True)
    try:
        turn_id = getattr(view, "turn_id", None)
        if view is not None and turn_id is None:
            app.notify("this turn cannot be undone (no turn id)", severity="warning")
            return
        dry = await _dry_run(app, turn_id)
        if not _has_changes(dry):
            app.notify(dry.message or "nothing to undo", timeout=4,
                       severity="warning" if dry.ok or dry.code == NOTHING_TO_UNDO
                       else "error")
            return
        choice = await _preview(app, dry.report, getattr(view, "text", ""), None)
        if choice is not None:
            await _undo(app, turn_id, overwrite=choice == "overwrite")
    finally:
        _set_busy(app, False)


def undo_at_cursor(screen: Any) -> None:
    """`u` in the chat."""
    screen.run_worker(undo_turn(screen, turn_at_cursor(screen)), group="undo")


class UndoCommands(Provider):
    """The palette's `Undo changes of this turn…`: the turn of the chat's cursor, else the
    latest turn that changed files."""

    def _command(self) -> tuple[str, Any]:
        from .screens.main import MainScreen

        main = next((s for s in reversed(self.app.screen_stack) if isinstance(s, MainScreen)),
                    None)
        if main is None:
            return "", None
        view = turn_at_cursor(main)
        if view is not None:
            first = (view.text.splitlines() or [""])[0]
            help_text = (f"Restore the files as they were before “{first[:50]}” (this turn "
                         "and later ones changed them); a preview first (u on a turn in the "
                         "chat)")
        else:
            help_text = ("Restore the files the latest turn that changed files changed; a "
                         "preview first (u on a turn in the chat)")

        def run() -> None:
            main.run_worker(undo_turn(main, view), group="undo")

        return help_text, run

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


# retry and edit ---------------------------------------------------------------------------
async def send_rewind(screen: Any, command: Command, *, notify: bool = True) -> Reply:
    """`command` to the session; a Retry or an EditPrompt whose turns changed files first
    offers to restore them (the preview, in its rewind form): restored, then sent; kept,
    sent; cancelled, not sent (a Reply with code "cancelled")."""
    app = screen.app
    if isinstance(command, Retry):
        prompts = screen.chat.user_messages()
        view, rewind = (prompts[-1] if prompts else None), "retry"
    elif isinstance(command, EditPrompt):
        view = next((v for v in screen.chat.user_messages() if v.turn_id == command.turn_id),
                    None)
        rewind = "edit"
    else:
        return await app.send(command, notify=notify)
    turn_id = getattr(view, "turn_id", None)
    if turn_id is None or _busy(app):
        return await app.send(command, notify=notify)
    _set_busy(app, True)
    try:
        dry = await _dry_run(app, turn_id)
        if _has_changes(dry):
            choice = await _preview(app, dry.report, getattr(view, "text", ""), rewind)
            if choice is None:
                what = "retry" if rewind == "retry" else "edited prompt"
                reply = Reply(ok=False, code=CANCELLED, message=f"{what} not sent (Esc)")
                if notify:
                    app.notify(reply.message, timeout=3)
                return reply
            if choice != "keep":
                undone = await _undo(app, turn_id, overwrite=choice == "overwrite")
                if not undone.ok:
                    return Reply(ok=False, code=undone.code, message=undone.message)
    finally:
        _set_busy(app, False)
    return await app.send(command, notify=notify)


# the result in the chat -------------------------------------------------------------------
class UndoRow(SafeStatic):
    """`↶ files put back: 2 restored, 1 removed · 1 conflict left as it is`, then one line a
    file. A retry or an edit that follows keeps it in the chat (widgets/chat_view.py)."""

    survives_rewind = True

    def __init__(self, event: ev.TurnUndo, cwd: str = "") -> None:
        super().__init__(classes="chat-item notice undo-row")
        self.event = event
        self.cwd = cwd

    def build(self) -> Text:
        files = list(self.event.files or ())
        counts: dict[str, int] = {}
        for f in files:
            counts[f.action] = counts.get(f.action, 0) + 1
        parts = [f"{counts[a]} {a}" for a in ("restored", "removed") if counts.get(a)]
        out = Text("↶ undo: ", style="bold cyan")
        out.append(", ".join(parts) or "no file put back", style="cyan")
        if counts.get("conflict"):
            n = counts["conflict"]
            out.append(f" · {n} conflict{'s' if n > 1 else ''} left as "
                       f"{'they are' if n > 1 else 'it is'}", style="bold magenta")
        shown = relative_to(self.cwd)
        for f in files[:20]:
            style = "magenta" if f.action == "conflict" else "dim"
            out.append(f"\n  {f.action:<9} {shown(f.path)}", style=style)
        if len(files) > 20:
            out.append(f"\n  … {len(files) - 20} more (raw-tui sessions show)", style="dim")
        return out


async def draw_undo(screen: Any, event: ev.TurnUndo, live: bool) -> None:
    """The session's `undo` event (live or replayed): a row at the end of the chat."""
    await screen.conversation.transcript.finish_stream()
    info = getattr(screen.app, "info", None)
    await screen.chat.add(UndoRow(event, getattr(info, "cwd", "") or ""))
    if live:  # the result shows, though the cursor had scrolled the chat up to the turn
        screen.chat.anchor()

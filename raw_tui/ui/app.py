"""The full-screen app: chat in the middle, live panels on the right, composer and status
line at the bottom. It draws the engine's events and sends commands back through
`SessionApi.handle`; it holds no rule of its own."""

from __future__ import annotations

import asyncio
import base64
import os
import time
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable

import msgspec
from textual import log
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen

from .. import bus as ev
from ..client import SessionClient
from ..commands import (ApprovalAnswer, Cancel, Clear, Compact, FormAnswer, FormCancel,
                        PanelAction, Prompt, Quit, Reply, SavedSession, UiSettings)
from .messages import BusEvent
from .widgets.chat_items import (HiddenRow, HookRow, NoticeRow, PanelReceiptRow,
                                 UserMessageView)
from .widgets.chat_view import ChatView
from .widgets.composer import Composer
from .widgets.navigator import Navigator
from .widgets.panel_view import PanelView, Target
from .widgets.sidebar import Sidebar
from .widgets.status_line import Status, StatusLine
from .widgets.tool_call import ToolCallView

STYLES = Path(__file__).resolve().parent / "styles"
WIDE = 100  # below this many columns the sidebar starts hidden
QUIT_TIMEOUT = 10.0
FIRST_FRAME_ENV = "RAW_TUI_FIRST_FRAME_FILE"  # benchmarks: write the time of the first frame, exit
RUN_END_TEXT = {"cancelled": "turn cancelled", "max_steps": "stopped: max steps reached",
                "error": "turn failed"}


def _get(value: Any) -> Any:
    return None if value is msgspec.UNSET else value


class Resume(msgspec.Struct, frozen=True):
    """What the app returns when the user chose another saved session in the palette: the
    command line closes this session and opens that one in a new app."""

    session_id: str


def osc52(text: str, tmux: bool) -> str:
    """The OSC 52 sequence that puts `text` on the terminal's clipboard; wrapped in a DCS
    passthrough for tmux (which needs `set -g allow-passthrough on` or `set-clipboard on`)."""
    seq = f"\x1b]52;c;{base64.b64encode(text.encode('utf-8')).decode('ascii')}\a"
    if tmux:
        return "\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return seq


class RawApp(App):
    TITLE = "raw-tui"
    CSS_PATH = [STYLES / name for name in ("app.tcss", "chat.tcss", "sidebar.tcss",
                                           "panel.tcss", "form.tcss", "composer.tcss",
                                           "status_line.tcss")]
    ENABLE_COMMAND_PALETTE = True
    AUTO_FOCUS = "#composer"
    BINDINGS = [
        Binding("ctrl+q", "quit_session", "Quit", id="raw.quit", priority=True),
        Binding("ctrl+p", "command_palette", "Commands", id="raw.command_palette",
                priority=True),
        Binding("escape", "cancel_turn", "Cancel turn", id="raw.cancel"),
        Binding("f2,ctrl+t", "toggle_sidebar", "Sidebar", id="raw.toggle_sidebar"),
        Binding("f1", "toggle_help", "Keys", id="raw.help"),
        Binding("ctrl+o", "transcript", "Earlier items", id="raw.transcript", show=False),
    ]

    def __init__(self, client: SessionClient) -> None:
        """`client` is the session across the wall (a transport, `raw_tui.client`): events
        come through it, commands go back through it. A session not `ready` yet is opened
        right after the first frame."""
        super().__init__()
        self.client = client
        self.startup_error: BaseException | None = None
        self._ready_marker: str | None = None
        self.options = UiSettings()
        self.saved: list[SavedSession] = []  # other saved sessions, for the palette
        info = client.info
        self.status = Status(agent=info.agent, model=info.model, max_steps=info.max_steps,
                             state="idle" if client.ready else "starting")
        self.panel_states: dict[str, Any] = {}
        self.chat_panels: dict[str, PanelView] = {}
        self.tool_calls: dict[str, ToolCallView] = {}
        self.approvals: list[Any] = []  # pending ApprovalRequests, oldest first
        self.approval_screen: Any = None  # the ApprovalScreen open now
        self.questions: dict[str, str] = {}  # request_id -> panel
        self.replayed_questions: dict[str, str] = {}  # the same, of a resumed session
        self.streaming: Any = None  # the AssistantMessageView being streamed into
        self.sidebar_mode = "auto"  # auto | shown | hidden
        self.sidebar_forced = False  # shown because a question arrived there
        self._early: list[Any] | None = []  # events published before the app was ready
        self.exiting = False  # set by exit(): events still queued are not drawn
        client.listen(self._on_bus)
        self.animation_level = "none"

    # layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        blink = self.options.cursor_blink
        with Horizontal(id="main"):
            yield ChatView(id="chat", max_items=self.options.max_chat_items)
            yield Sidebar(id="sidebar", cursor_blink=blink)
        yield Composer(id="composer", cursor_blink=blink)
        yield StatusLine(id="status")

    async def on_mount(self) -> None:
        self.title = f"raw-tui · {self.client.info.agent}"
        self._apply_sidebar()
        self._show_status()
        self.query_one(Composer).focus()
        marker = os.environ.get(FIRST_FRAME_ENV)
        if marker:
            self.call_after_refresh(self._first_frame, marker)
        if self.client.ready:  # the session is there: draw its history before the first frame
            await self._open()
        else:
            self.call_after_refresh(self.run_worker, self._open(), group="open")

    def _first_frame(self, marker: str) -> None:
        """Benchmarks: note when the main screen's first frame was drawn; quit once the
        session is open too (noting when)."""
        Path(marker).write_text(f"{time.time()!r}\n", encoding="utf-8")
        self._ready_marker = marker
        if self._early is None:
            self._session_ready()

    def _session_ready(self) -> None:
        if self._ready_marker:
            with open(self._ready_marker, "a", encoding="utf-8") as out:
                out.write(f"{time.time()!r}\n")
            self.exit()

    async def _open(self) -> None:
        """Open the session (loading the engine, when it is in this process): adopt its
        settings, draw the saved history, then the events published meanwhile. A config or
        resume error ends the app with it."""
        await asyncio.sleep(0)
        try:
            opened = await self.client.open()
        except Exception as err:
            self.startup_error = err
            self.exit(return_code=1)
            return
        self._adopt_options(opened.ui)
        info = opened.info
        self.status.agent, self.status.model = info.agent, info.model
        self.status.max_steps = info.max_steps
        if self.status.state == "starting":
            self.status.state = "idle"
        self.title = f"raw-tui · {info.agent}"
        self._show_status()
        self.chat.begin_batch()
        try:
            for event in opened.replay:
                await self.apply_event(event, live=False)
        finally:
            await self.chat.end_batch()
        early, self._early = self._early or [], None
        for event in early:
            await self.apply_event(event, live=True)
        self.saved = await self.client.saved_sessions()
        self._session_ready()

    def _adopt_options(self, options: UiSettings) -> None:
        self.options = options
        if options.keymap:
            self.set_keymap(dict(options.keymap))
        for widget in self.query("Composer, Input, TextArea"):
            widget.cursor_blink = options.cursor_blink
        self.sidebar.cursor_blink = options.cursor_blink
        self.chat.max_items = options.max_chat_items
        self.animation_level = "full" if options.animations else "none"

    def on_resize(self) -> None:
        self._apply_sidebar()

    def on_descendant_focus(self, event: Any) -> None:
        """Say in the status line where the keyboard is."""
        widget = self.focused
        place = None
        if widget is not None:
            chain = widget.ancestors_with_self
            if any(w.has_class("form-block") for w in chain):
                place = "form"
            elif any(isinstance(w, Sidebar) for w in chain):
                place = "sidebar"
            elif any(isinstance(w, ChatView) for w in chain):
                place = "chat"
        try:
            self.query_one(StatusLine).show_place(place)
        except Exception:  # another screen is on top
            pass

    def _apply_sidebar(self) -> None:
        sidebar = self.query_one(Sidebar)
        wide = self.size.width >= WIDE
        shown = (self.sidebar_mode == "shown" or self.sidebar_forced
                 or (self.sidebar_mode == "auto" and wide))
        sidebar.display = shown
        self.screen.set_class(not wide, "-narrow")
        self.screen.set_class(self.size.width < 60 or self.size.height < 16, "-tiny")

    def _show_status(self) -> None:
        self.status.approvals = len(self.approvals)
        self.status.questions = len(self.questions)
        self.query_one(StatusLine).show(self.status)

    # bus -> app ---------------------------------------------------------------------------
    def _on_bus(self, event: Any) -> None:
        """Called synchronously inside Bus.publish (same loop): queue it as a message."""
        if self._early is not None:
            self._early.append(event)
        else:
            self.post_message(BusEvent(event))

    async def on_bus_event(self, message: BusEvent) -> None:
        if not self.exiting:
            await self.apply_event(message.event, live=True)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self.exiting = True
        super().exit(*args, **kwargs)

    async def apply_event(self, event: Any, *, live: bool) -> None:
        handler = getattr(self, f"_event_{type(event).__name__}", None)
        if handler is None:
            return
        try:
            await handler(event, live)
        except Exception as err:  # one bad event must not take the session down
            log.error(f"drawing {type(event).__name__} failed: {err!r}")
            if self.exiting:
                return
            try:
                await self.chat.add(NoticeRow(f"could not draw {type(event).__name__}: {err}",
                                              "error"))
            except Exception as again:
                log.error(f"drawing the error notice failed: {again!r}")

    @property
    def chat(self) -> ChatView:
        return self.query_one(ChatView)

    @property
    def sidebar(self) -> Sidebar:
        return self.query_one(Sidebar)

    async def _event_SessionStart(self, event: ev.SessionStart, live: bool) -> None:
        self.status.agent = event.agent
        self._show_status()

    async def _event_UserMessage(self, event: ev.UserMessage, live: bool) -> None:
        await self._finish_stream()
        await self.chat.add(UserMessageView(event.text))

    async def _event_AssistantDelta(self, event: ev.AssistantDelta, live: bool) -> None:
        if not live:
            return  # a resumed session draws the final text
        if self.streaming is None:
            from .widgets.assistant import AssistantMessageView

            self.streaming = AssistantMessageView()
            await self.chat.add(self.streaming)
        await self.streaming.write(event.text)

    async def _event_AssistantText(self, event: ev.AssistantText, live: bool) -> None:
        if self.streaming is not None:
            await self._finish_stream(event.text)
        elif event.text:
            from .widgets.assistant import AssistantMessageView

            await self.chat.add(AssistantMessageView(event.text))

    async def _finish_stream(self, final: str | None = None) -> None:
        view, self.streaming = self.streaming, None
        if view is not None:
            await view.finish(final)

    async def _tool_view(self, call_id: str, identity: str = "", name: str = "") -> ToolCallView:
        view = self.tool_calls.get(call_id)
        if view is None or not self.chat.holds(view):
            view = ToolCallView(call_id, identity, name)
            self.tool_calls[call_id] = view
            await self.chat.add(view)
        return view

    async def _event_ToolCall(self, event: ev.ToolCall, live: bool) -> None:
        await self._finish_stream()
        (await self._tool_view(event.call_id, event.identity, event.name)).set_call(event)

    async def _event_ApprovalRequest(self, event: ev.ApprovalRequest, live: bool) -> None:
        await self._finish_stream()
        (await self._tool_view(event.call_id, event.identity, event.name)).set_asked(event)
        if live:
            self.approvals.append(event)
            self._show_status()
            self._next_approval()

    async def _event_ApprovalDecision(self, event: ev.ApprovalDecision, live: bool) -> None:
        (await self._tool_view(event.call_id)).set_decision(event.allow)
        self._drop_approval(event.call_id)

    async def _event_ToolResultEvent(self, event: ev.ToolResultEvent, live: bool) -> None:
        (await self._tool_view(event.call_id)).set_result(event)
        self._drop_approval(event.call_id)

    async def _event_ToolProgress(self, event: ev.ToolProgress, live: bool) -> None:
        if live:  # a finished call's progress is of no interest when replayed
            (await self._tool_view(event.call_id)).set_progress(event)

    async def _event_HookEvent(self, event: ev.HookEvent, live: bool) -> None:
        await self.chat.add(HookRow(event))

    async def _event_PanelReceipt(self, event: ev.PanelReceipt, live: bool) -> None:
        state = self.panel_states.get(event.panel)
        doc = state.document if state is not None and isinstance(state.document, dict) else {}
        await self.chat.add(PanelReceiptRow(event, doc.get("progress")))

    async def _event_PanelState(self, event: ev.PanelState, live: bool) -> None:
        self.panel_states[event.panel] = event
        if event.placement == "chat":
            view = self.chat_panels.get(event.panel)
            if view is not None and self.chat.holds(view):
                await view.update_state(event)
            elif event.document is not None:
                view = PanelView(event, cursor_blink=self.options.cursor_blink)
                self.chat_panels[event.panel] = view
                await self.chat.add(view)
        else:
            await self.sidebar.upsert(event)
        for request_id, panel in self.questions.items():
            if panel == event.panel:
                self._open_form(request_id, panel)

    async def _event_InteractionRequest(self, event: ev.InteractionRequest, live: bool) -> None:
        if not live:  # a resumed session: the request is over; its form shows how it ended
            self.replayed_questions[event.request_id] = event.panel
            return
        self.questions[event.request_id] = event.panel
        self._show_status()
        self._open_form(event.request_id, event.panel)

    async def _event_InteractionSettled(self, event: ev.InteractionSettled, live: bool) -> None:
        replayed = self.replayed_questions.pop(event.request_id, None)
        if replayed:
            view = self.sidebar.panels.get(replayed) or self.chat_panels.get(replayed)
            if view is not None:
                view.show_settled(event.status)
        panel = self.questions.pop(event.request_id, None)
        self._show_status()
        for form in self.query("FormView"):
            if form.request_id == event.request_id:
                had_focus = self.focused is not None and form in self.focused.ancestors_with_self
                form.deactivate(event.status)
                if had_focus:
                    self.query_one(Composer).focus()
        if panel is not None and self.sidebar_forced and not self.questions:
            self.sidebar_forced = False
            self._apply_sidebar()

    async def _event_RunEnd(self, event: ev.RunEnd, live: bool) -> None:
        await self._finish_stream()
        if event.status != "completed":
            text = RUN_END_TEXT.get(event.status, event.status)
            parts = [x for x in (_get(event.code), _get(event.message)) if x and x not in text]
            detail = " ".join(dict.fromkeys(parts))  # a message that repeats the code once
            level = "warning" if event.status in ("cancelled", "max_steps") else "error"
            await self.chat.add(NoticeRow(f"{text}{': ' + detail if detail else ''}", level))

    async def _event_TurnState(self, event: ev.TurnState, live: bool) -> None:
        if not live:
            return
        self.status.state, self.status.step = event.state, event.step
        self.status.max_steps = event.max_steps or self.status.max_steps
        self._show_status()

    async def _event_HooksReload(self, event: ev.HooksReload, live: bool) -> None:
        self.status.notice = ((event.message or "hooks reloaded") if event.ok
                              else f"hooks reload rejected: {event.message}")
        self.status.notice_error = not event.ok
        self._show_status()
        if not event.ok:
            await self.chat.add(NoticeRow(self.status.notice, "error"))

    async def _event_Notice(self, event: ev.Notice, live: bool) -> None:
        await self.chat.add(NoticeRow(event.message, event.level))

    # approvals ----------------------------------------------------------------------------
    def _next_approval(self) -> None:
        if self.approval_screen is not None:
            self.approval_screen.set_waiting(len(self.approvals) - 1)
            return
        if not self.approvals:
            return
        request = self.approvals[0]
        from .screens.approval import ApprovalScreen

        screen = ApprovalScreen(request, waiting=len(self.approvals) - 1)
        self.approval_screen = screen
        self.push_screen(screen, partial(self._approval_answered, request))

    def _approval_answered(self, request: Any, allow: bool | None) -> None:
        self.approval_screen = None
        if allow is not None and any(r is request for r in self.approvals):
            self.run_worker(self.client.handle(ApprovalAnswer(call_id=request.call_id,
                                                               allow=allow)),
                            group="commands")
        self._drop_approval(request.call_id)
        self._next_approval()

    def _drop_approval(self, call_id: str) -> None:
        before = len(self.approvals)
        self.approvals = [r for r in self.approvals if r.call_id != call_id]
        screen = self.approval_screen
        if screen is not None and screen.request.call_id == call_id:
            screen.dismiss(None)  # decided elsewhere (a cancel): close without answering
        elif screen is not None:
            screen.set_waiting(len(self.approvals) - 1)
        if len(self.approvals) != before:
            self._show_status()

    # forms --------------------------------------------------------------------------------
    def _panel_view(self, panel: str) -> PanelView | None:
        view = self.sidebar.panels.get(panel) or self.chat_panels.get(panel)
        return view if view is not None and view.is_attached else None

    def _open_form(self, request_id: str, panel: str) -> None:
        view = self._panel_view(panel)
        form = view.form() if view is not None else None
        if form is None or form.request_id == request_id:
            return
        if isinstance(view.parent, Sidebar) and not self.sidebar.display:
            self.sidebar_forced = True
            self._apply_sidebar()
        form.activate(request_id)
        self.call_after_refresh(view.scroll_visible, animate=False)

    async def on_form_view_submitted(self, message: Any) -> None:
        key = f"{message.request_id}:{hash(repr(sorted(message.answers.items())))}"
        reply = await self._send(FormAnswer(request_id=message.request_id,
                                            answers=message.answers, idempotency_key=key))
        if not reply.ok:
            message.form.show_error(reply.message or reply.code or "answer refused")
        else:
            message.form.show_error(None)
            message.form.show_waiting()

    async def on_form_view_cancelled(self, message: Any) -> None:
        await self._send(FormCancel(request_id=message.request_id))

    # composer -----------------------------------------------------------------------------
    async def on_composer_submitted(self, message: Composer.Submitted) -> None:
        reply = await self._send(Prompt(text=message.text))
        if not reply.ok and not message.composer.text:
            message.composer.set_draft(message.text)

    async def _send(self, command: Any) -> Reply:
        try:
            reply = await self.client.handle(command)
        except Exception as err:
            log.error(f"{type(command).__name__} failed: {err!r}")
            reply = Reply(ok=False, message=str(err))
        if reply is None:
            reply = Reply()
        if not reply.ok and not isinstance(command, FormAnswer):
            self.notify(reply.message or reply.code or "refused", severity="error")
        return reply

    # navigation: Enter, copy --------------------------------------------------------------
    async def on_navigator_activated(self, message: Navigator.Activated) -> None:
        target = message.target
        widget = target.widget
        if isinstance(widget, ToolCallView):
            widget.toggle()
        elif isinstance(widget, HiddenRow):
            self.action_transcript()
        elif target.panel is not None:
            self.open_actions(target)

    def on_navigator_copy(self, message: Navigator.Copy) -> None:
        self.copy_to_clipboard(message.text)
        self.notify("copied to the clipboard (OSC 52)", timeout=2)

    def copy_to_clipboard(self, text: str) -> None:
        self._clipboard = text
        if self._driver is not None:
            self._driver.write(osc52(text, tmux=bool(os.environ.get("TMUX"))))

    def actions_for(self, target: Target) -> list[dict]:
        """The actions offered at the cursor, narrowest scope first: on an item its item
        actions, then its block's, then the panel's; on a block its block actions, then the
        panel's; on the panel header the panel's. Response actions belong to forms."""
        view = self._panel_view(target.panel) if target.panel else None
        if view is None:
            return []
        scopes = (["item"] if target.item is not None else []) + (
            ["block"] if target.block else []) + ["panel"]
        actions = [a for a in view.actions() if a.get("kind") != "response"]
        return [a for scope in scopes for a in actions if a.get("scope", "panel") == scope]

    def open_actions(self, target: Target) -> None:
        actions = self.actions_for(target)
        if not actions:
            self.notify("no actions here", timeout=2)
            return
        view = self._panel_view(target.panel)
        where = view.title + (f" › {target.block}" if target.block else "") + (
            f" › {target.item}" if target.item else "")

        def chosen(action: dict | None) -> None:
            if action is None:
                return
            scope = action.get("scope", "panel")  # name only what the action's scope needs
            block = target.block if scope in ("block", "item") else None
            item = target.item if scope == "item" else None
            self.run_worker(self.run_panel_action(target.panel, action, block, item),
                            group="commands")

        from .screens.actions_menu import ActionsMenu

        self.push_screen(ActionsMenu(where, actions), chosen)

    async def run_panel_action(self, panel: str, action: dict, block: str | None = None,
                               item: str | None = None) -> None:
        reply = await self._send(PanelAction(panel=panel, action=str(action.get("id")),
                                             block=block, item=item))
        if reply.ok and reply.draft is not None:
            composer = self.query_one(Composer)
            composer.set_draft(reply.draft)
            if reply.send:
                composer.action_send()

    # actions ------------------------------------------------------------------------------
    async def action_quit_session(self) -> None:
        await self._close_session()
        self.exit()

    async def _close_session(self) -> None:
        try:
            await asyncio.wait_for(self.client.handle(Quit()), QUIT_TIMEOUT)
        except Exception as err:
            log.error(f"quit: {err!r}")

    async def action_cancel_turn(self) -> None:
        if self.status.state == "running":
            await self._send(Cancel())

    def action_toggle_sidebar(self) -> None:
        self.sidebar_forced = False
        shown = self.sidebar.display
        self.sidebar_mode = "hidden" if shown else "shown"
        self._apply_sidebar()
        if self.sidebar.display:
            self.sidebar.focus()
        elif self.focused is None or self.sidebar in self.focused.ancestors_with_self:
            self.query_one(Composer).focus()

    def action_toggle_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_transcript(self) -> None:
        if self.chat.archive:
            from .screens.transcript import TranscriptScreen

            self.push_screen(TranscriptScreen(list(self.chat.archive)))
        else:
            self.notify("no earlier items", timeout=2)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield SystemCommand("/compact", "Summarise the conversation to free context",
                            partial(self.run_worker, partial(self._send, Compact())))
        yield SystemCommand("/clear", "Start over with an empty conversation",
                            partial(self.run_worker, partial(self._send, Clear())))
        yield SystemCommand("Quit", "Close the session (SessionEnd runs) and exit",
                            self.action_quit_session)
        yield SystemCommand("Toggle sidebar", "Show or hide the panels",
                            self.action_toggle_sidebar)
        yield SystemCommand("Keys", "Show the keys of the focused widget",
                            self.action_toggle_help)
        yield SystemCommand("Earlier items", "Show chat items pruned from view",
                            self.action_transcript)
        for panel, state in self.panel_states.items():
            view = self._panel_view(panel)
            if view is None:
                continue
            for action in view.actions():
                if action.get("scope", "panel") != "panel" or action.get("kind") == "response":
                    continue
                yield SystemCommand(
                    f"{view.title}: {action.get('label', action.get('id'))}",
                    f"{action.get('kind', '')} action of {panel}",
                    partial(self.run_worker, partial(self.run_panel_action, panel, action)))
        for row in self.saved:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.updated_at))
            yield SystemCommand(f"Resume: {row.title or '(no prompt)'}",
                                f"saved session {row.id} · {when} · {row.events} events",
                                partial(self.resume_session, row.id))
        for command in super().get_system_commands(screen):
            if command.title in ("Theme",):
                yield command

    async def action_command_palette(self) -> None:
        """The palette, with the saved sessions as they are now."""
        try:
            self.saved = await self.client.saved_sessions()
        except Exception as err:
            log.error(f"listing sessions failed: {err!r}")
        super().action_command_palette()

    async def resume_session(self, session_id: str) -> None:
        """Close this session cleanly (as Ctrl+Q does), then reopen `session_id`."""
        await self._close_session()
        self.exit(Resume(session_id))

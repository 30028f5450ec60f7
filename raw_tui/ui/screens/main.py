"""The main screen: chat | sidebar, the composer, the status line.

Engine events arrive as typed messages (`ui/messages.py`), in order; each handler here hands
its event to the widget that draws it (a tool call's four events to its `ToolCallView`, the
turn state to the `StatusLine`, a panel's state to the sidebar or the chat). Commands go back
through the app's client. Approvals wait in one queue, shown one at a time by one worker."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgspec
from textual import log, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from ...bus import ApprovalRequest
from ...errors import BUSY
from ...commands import (ApprovalAnswer, Cancel, EditPrompt, FormAnswer, FormCancel, PanelAction,
                         Prompt, Retry)
from ..textual_private import draw_now, is_closing
from ..widgets.chat_view import ChatView, HiddenRow
from ..widgets.navigator import Navigator, Target
from ..widgets.prompt_queue import PromptQueue
from ..widgets.search_bar import SearchBar
from ..widgets.sidebar import Sidebar
from ..widgets.stand_in import ComposerStandIn
from ..widgets.status_line import StatusLine

if TYPE_CHECKING:  # imported on the first tool call: the first frame draws none
    from .. import messages as msg  # imported with the first events drawn (ui/bridge.py)
    from ..widgets.chat_items import UserMessageView  # with the first row: the frame has none
    from ..widgets.composer import Composer
    from ..widgets.panel_view import PanelView  # on the first panel: the first frame draws none
    from ..widgets.tool_call import ToolCallView

EDIT_STRIP = "✎ editing a prompt · Enter resends it (replaces what followed) · Esc stops"
REWIND_TEXT = {"retry": "↻ retried · the earlier answer is kept in the saved history only",
               "edit": "✎ prompt edited · the earlier one and what followed are kept in the "
                       "saved history only"}
WIDE = 100  # below this many columns the sidebar starts hidden
RUN_END_TEXT = {"cancelled": "turn cancelled", "max_steps": "stopped: max steps reached",
                "error": "turn failed"}


def _applies(action: dict, target: Any, view: Any) -> bool:
    """Raw's `blocks` and `when` of an action: offered only on those blocks, and only for
    items of those statuses (the engine refuses the rest too: panels/actions.py)."""
    blocks = action.get("blocks")
    if blocks and action.get("scope") in ("block", "item") and target.block not in blocks:
        return False
    when = action.get("when")
    if not when:
        return True
    if action.get("scope") != "item" or target.item is None:
        return False  # Raw offers such an action only for items with a status
    return view.item_status(target.block, target.item) in (when.get("status") or ())


def _get(value: Any) -> Any:
    return None if value is msgspec.UNSET else value


def _another_call(view: Any, state: Any) -> bool:
    """A chat panel's new document written by another call than the one its view shows (a
    second question of `ask_user`): drawn anew where that call is, the earlier view kept."""
    call, shown = _get(getattr(state, "call_id", None)), _get(getattr(view.state, "call_id", None))
    return state.document is not None and bool(call) and bool(shown) and call != shown


class MainScreen(Screen):
    AUTO_FOCUS = "#composer, #composer-stand-in"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn", id="raw.cancel"),
        Binding("ctrl+r", "retry", "Retry", id="raw.retry"),
        Binding("ctrl+f", "search", "Search", id="raw.search"),
        Binding("f2,ctrl+t", "toggle_sidebar", "Sidebar", id="raw.toggle_sidebar"),
        Binding("ctrl+o", "transcript", "Earlier items", id="raw.transcript", show=False),
        Binding("tab", "cycle(1)", "Next place", id="raw.next_place", show=False),
        Binding("shift+tab", "cycle(-1)", "Previous place", id="raw.previous_place",
                show=False),
        Binding("ctrl+s", "submit_form", "Submit the question", id="raw.submit_form",
                show=False),
    ]

    def __init__(self, *, agent: str, model: str, max_steps: int, starting: bool,
                 stand_in: bool = False) -> None:
        """`stand_in`: the first frame shows the composer's stand-in (widgets/stand_in.py),
        replaced by the composer right after it (`mount_composer`)."""
        super().__init__(id="main-screen")
        self.stand_in = stand_in
        self.status_args = dict(agent=agent, model=model, max_steps=max_steps,
                                state="starting" if starting else "idle")
        self.chat_panels: dict[str, PanelView] = {}
        self.tool_calls: dict[str, ToolCallView] = {}
        self.approvals: list[ApprovalRequest] = []  # pending, oldest first
        self.approval_queue: asyncio.Queue[ApprovalRequest] = asyncio.Queue()
        self.approval_screen: Any = None  # the ApprovalScreen open now
        self.questions: dict[str, str] = {}  # request_id -> panel
        self.replayed_questions: dict[str, str] = {}  # the same, of a resumed session
        self.streaming: Any = None  # the AssistantMessageView being streamed into
        self.sidebar_mode = "auto"  # auto | shown | hidden
        self.sidebar_forced = False  # shown because a question arrived there
        self.cursor_blink = False
        self.editing: UserMessageView | None = None  # the prompt the composer edits
        self.actions_running = 0  # panel actions sent and not answered yet (Esc cancels them)

    # layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        chat, sidebar = ChatView(id="chat"), Sidebar(id="sidebar")
        self.lay_out(chat, sidebar, self.app.size)  # now: no restyle of all once mounted
        with Horizontal(id="main"):
            yield chat
            yield sidebar
        yield Static(id="panel-strip")  # narrow screens: "a panel changed", while hidden
        yield SearchBar(id="search")
        yield Static(EDIT_STRIP, id="edit-strip")  # while the composer edits an earlier prompt
        yield PromptQueue(id="queued")  # prompts sent while a turn runs
        if self.stand_in:
            yield ComposerStandIn(id="composer-stand-in")
        else:
            from ..widgets.composer import Composer

            yield Composer(id="composer")
        yield StatusLine(id="status", **self.status_args)

    def on_mount(self) -> None:
        self.apply_sidebar()
        self.focus_composer()  # also where AUTO_FOCUS does not run (a browser)
        self.call_after_refresh(self.approval_worker)  # its modal's imports: after the frame
        self.app.main_screen_ready()

    async def mount_composer(self) -> None:
        """Right after the first frame: the composer takes its stand-in's place, with the
        keys typed into that meanwhile, in order; and the focus, if it had it."""
        stand_in = next(iter(self.query(ComposerStandIn)), None)
        if stand_in is None or not self.is_attached or is_closing(self):  # (quit at once)
            return
        from ..widgets.composer import Composer

        composer = Composer(id="composer", cursor_blink=self.cursor_blink)
        composer.display = False
        await self.mount(composer, after=stand_in)
        focused = self.focused is stand_in
        stand_in.hand_over(composer)
        stand_in.display, composer.display = False, True
        if focused:
            self.set_focus(composer)
        await stand_in.remove()

    @property
    def composer(self) -> Composer:
        return self.query_one("#composer")

    def focus_composer(self) -> None:
        """Focus the composer (its stand-in before the composer is there)."""
        self.query("#composer, #composer-stand-in").first().focus()

    @property
    def chat(self) -> ChatView:
        return self.query_one(ChatView)

    @property
    def sidebar(self) -> Sidebar:
        return self.query_one(Sidebar)

    @property
    def status_line(self) -> StatusLine:
        return self.query_one(StatusLine)

    def adopt(self, *, cursor_blink: bool, max_chat_items: int) -> None:
        """The session's UI settings, once it is open."""
        self.cursor_blink = cursor_blink
        for widget in self.query("Composer, Input, TextArea"):
            widget.cursor_blink = cursor_blink
        self.sidebar.cursor_blink = cursor_blink
        self.chat.max_items = max_chat_items

    def on_screen_suspend(self) -> None:
        """A modal (approval, actions, palette) covers the screen: its scrollbars would float
        beside the dialog, dimmed, as stray thumbs; they hide until it closes."""
        self.add_class("-covered")

    def on_screen_resume(self) -> None:
        self.remove_class("-covered")

    def on_resize(self, event: Any) -> None:
        """The new size is the event's (the app's may still be the old one)."""
        self.apply_sidebar(event.size)

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
        self.status_line.show_place(place)

    def apply_sidebar(self, size: Any = None) -> None:
        """Wide: chat | sidebar. Narrow (below WIDE columns): one view at a time, the chat
        or the panels (the sidebar at full width), switched by F2 or by Tab."""
        if self.lay_out(self.chat, self.sidebar, size or self.app.size):
            self.show_panel_strip("")

    def lay_out(self, chat: ChatView, sidebar: Sidebar, size: Any) -> bool:
        """Show or hide the chat and the sidebar for `size`; whether the sidebar shows."""
        width, height = size
        wide = width >= WIDE
        sidebar.display = (self.sidebar_mode == "shown" or self.sidebar_forced
                           or (self.sidebar_mode == "auto" and wide))
        chat.display = wide or not sidebar.display
        self.set_class(not wide, "-narrow")
        self.set_class(width < 60 or height < 16, "-tiny")
        self.set_class(height < 24, "-short")  # styles/form.tcss: a form's keys on top
        return sidebar.display

    def show_chat(self) -> None:
        """A prompt went out (typed, or sent by a panel action): on a narrow screen where the
        panels cover the chat, the chat comes back so that its answer shows."""
        if self.has_class("-narrow") and self.sidebar.display and not self.chat.display \
                and not self.sidebar_forced:
            self.sidebar_mode = "auto"
            self.apply_sidebar()
            if self.focused is None or self.sidebar in self.focused.ancestors_with_self:
                self.focus_composer()

    def show_panel_strip(self, text: str) -> None:
        strip = self.query_one("#panel-strip", Static)
        strip.update(text)
        strip.display = bool(text)

    def action_cycle(self, step: int) -> None:
        """Tab / Shift+Tab between the composer, the forms waiting for an answer, the chat and
        the panels. On a narrow screen reaching the panels switches the view to them, leaving
        them switches back. Inside a form, Tab moves between its fields, and on from its last
        one."""
        from ..widgets.form_view import FormView

        forms = [f for f in self.pending_forms() if f.display and f.inputs]
        stops: list[Widget] = [self.query("#composer, #composer-stand-in").first(), *forms,
                               self.chat, self.sidebar]
        chain = list(self.focused.ancestors_with_self) if self.focused is not None else []
        form = next((w for w in chain if isinstance(w, FormView) and w.request_id is not None),
                    None)
        if form is not None:  # between its fields; from the last one on to the next place
            fields = [w for w in form.inputs.values() if w.focusable]
            if form not in stops or not fields or \
                    not any(w in chain for w in (fields[-1] if step > 0 else fields[0],)):
                self.focus_next() if step > 0 else self.focus_previous()
                return
            place: Widget | None = form
        else:
            place = next((w for w in chain if w in stops), None)
        if place is None:
            self.focus_next() if step > 0 else self.focus_previous()
            return
        narrow = self.has_class("-narrow")
        index = stops.index(place)
        for _ in range(len(stops)):
            index = (index + step) % len(stops)
            target = stops[index]
            if target is self.sidebar and not self.sidebar.display:
                if not narrow or not self.sidebar.panels:
                    continue
                self.sidebar_mode = "shown"
            elif target is not self.sidebar and narrow and self.sidebar.display \
                    and not self.sidebar_forced:
                self.sidebar_mode = "auto"
            self.apply_sidebar()
            if isinstance(target, FormView):  # a waiting question: its first field
                target.focus_first()
            else:
                target.focus()
            return

    def count_pending(self) -> None:
        self.status_line.set_pending(approvals=len(self.approvals), questions=len(self.questions))

    # the saved history --------------------------------------------------------------------
    def on_replay_started(self, message: msg.ReplayStarted) -> None:
        self.chat.begin_batch()

    async def on_replay_finished(self, message: msg.ReplayFinished) -> None:
        await self.chat.end_batch()

    # engine events, each to the widget that draws it ---------------------------------------
    def on_undrawn_event(self, message: msg.UndrawnEvent) -> None:
        log.warning(f"no widget draws {type(message.event).__name__}: {message.event!r}")

    async def add_notice(self, text: str, level: str) -> None:
        """A notice row at the end of the chat."""
        from ..widgets.chat_items import NoticeRow  # the rows load with the first one drawn

        await self.chat.add(NoticeRow(text, level))

    async def draw_error(self, name: str, err: Exception) -> None:
        """One bad event must not take the session down: a notice in the chat instead."""
        log.error(f"drawing {name} failed: {err!r}")
        try:
            await self.add_notice(f"could not draw {name}: {err}", "error")
        except Exception as again:
            log.error(f"drawing the error notice failed: {again!r}")

    async def _safely(self, message: msg.EngineEvent, draw) -> None:
        try:
            await draw(message.event, message.live)
        except Exception as err:
            await self.draw_error(type(message.event).__name__, err)

    async def on_session_started(self, message: msg.SessionStarted) -> None:
        self.status_line.session_start(message.event)
        self.app.title = f"raw-tui · {message.event.agent}"

    async def on_user_message_sent(self, message: msg.UserMessageSent) -> None:
        await self._safely(message, self._user_message)

    async def _user_message(self, event: Any, live: bool) -> None:
        await self.finish_stream()
        from ..widgets.chat_items import UserMessageView

        row = await self.chat.add(UserMessageView(event.text, _get(event.turn_id)))
        if live and row.is_attached:
            self.draw_now()

    def draw_now(self) -> None:
        """Lay out and draw the screen at once, for the prompt the user just sent. Textual
        draws only when the screen's queue is empty, at its next frame tick (60 a second): an
        instant reply queued behind the prompt's event, and the frame that cleared the
        composer, put the prompt two frames (~35 ms) after Enter. Once per prompt, so the
        frame rate stays bounded. Textual has no public call for it (docs/decisions.md)."""
        draw_now(self)  # after the first frame (ui/textual_private.py)

    async def on_assistant_delta_arrived(self, message: msg.AssistantDeltaArrived) -> None:
        if message.live:  # a resumed session draws the final text
            await self._safely(message, self._assistant_delta)

    async def _assistant_delta(self, event: Any, live: bool) -> None:
        if self.streaming is None:
            from ..widgets.assistant import AssistantMessageView

            self.streaming = AssistantMessageView()
            await self.chat.add(self.streaming)
        await self.streaming.write(event.text)

    async def on_assistant_text_arrived(self, message: msg.AssistantTextArrived) -> None:
        await self._safely(message, self._assistant_text)

    async def _assistant_text(self, event: Any, live: bool) -> None:
        if self.streaming is not None:
            await self.finish_stream(event.text)
        elif event.text:
            from ..widgets.assistant import AssistantMessageView

            await self.chat.add(AssistantMessageView(event.text))

    async def finish_stream(self, final: str | None = None) -> None:
        view, self.streaming = self.streaming, None
        if view is not None:
            await view.finish(final)

    async def tool_view(self, call_id: str, identity: str = "", name: str = "", *,
                        new_call: bool = False) -> ToolCallView:
        """The row of `call_id`. A `tool_call` (`new_call`) for an id whose row already shows
        a call starts a row of its own: a history saved before calls had keys of their own
        (docs/decisions.md) may name two calls with one id."""
        view = self.tool_calls.get(call_id)
        if new_call and view is not None and view.arguments is not None:
            view = None
        if view is None or not self.chat.holds(view):
            from ..widgets.tool_call import ToolCallView

            view = ToolCallView(call_id, identity, name)
            self.tool_calls[call_id] = view
            await self.chat.add(view)
        return view

    async def on_tool_called(self, message: msg.ToolCalled) -> None:
        await self._safely(message, self._tool_call)

    async def _tool_call(self, event: Any, live: bool) -> None:
        await self.finish_stream()
        view = await self.tool_view(event.call_id, event.identity, event.name, new_call=True)
        view.tool_call(event, live=live)

    async def on_approval_asked(self, message: msg.ApprovalAsked) -> None:
        await self._safely(message, self._approval_request)

    async def _approval_request(self, event: ApprovalRequest, live: bool) -> None:
        await self.finish_stream()
        (await self.tool_view(event.call_id, event.identity, event.name)).approval_request(event)
        if live:
            self.approvals.append(event)
            self.count_pending()
            self.approval_queue.put_nowait(event)
            self.show_waiting()

    async def on_approval_decided(self, message: msg.ApprovalDecided) -> None:
        await self._safely(message, self._approval_decision)

    async def _approval_decision(self, event: Any, live: bool) -> None:
        (await self.tool_view(event.call_id)).approval_decision(event, live=live)
        self.drop_approval(event.call_id)

    async def on_tool_result_arrived(self, message: msg.ToolResultArrived) -> None:
        await self._safely(message, self._tool_result)

    async def _tool_result(self, event: Any, live: bool) -> None:
        (await self.tool_view(event.call_id)).tool_result(event)
        self.drop_approval(event.call_id)

    async def on_tool_progressed(self, message: msg.ToolProgressed) -> None:
        if message.live:  # a finished call's progress is of no interest when replayed
            await self._safely(message, self._tool_progress)

    async def _tool_progress(self, event: Any, live: bool) -> None:
        (await self.tool_view(event.call_id)).tool_progress(event)

    async def on_tool_output_arrived(self, message: msg.ToolOutputArrived) -> None:
        if message.live:  # live only (never stored); a replay shows the result
            await self._safely(message, self._tool_output)

    async def _tool_output(self, event: Any, live: bool) -> None:
        (await self.tool_view(event.call_id)).tool_output(event)

    async def on_hook_ran(self, message: msg.HookRan) -> None:
        await self._safely(message, self._hook_event)

    async def _hook_event(self, event: Any, live: bool) -> None:
        from ..widgets.chat_items import HookRow

        await self.chat.add(HookRow(event))

    async def on_panel_receipt_arrived(self, message: msg.PanelReceiptArrived) -> None:
        await self._safely(message, self._panel_receipt)

    async def _panel_receipt(self, event: Any, live: bool) -> None:
        view = self.panel_view(event.panel, attached=False)
        doc = view.state.document if view is not None else None
        progress = doc.get("progress") if isinstance(doc, dict) else None
        from ..widgets.chat_items import PanelReceiptRow

        await self.chat.add(PanelReceiptRow(event, progress))

    async def on_panel_state_changed(self, message: msg.PanelStateChanged) -> None:
        await self._safely(message, self._panel_state)

    async def _panel_state(self, event: Any, live: bool) -> None:
        if event.placement == "chat":
            view = self.chat_panels.get(event.panel)
            if view is not None and self.chat.holds(view) and not _another_call(view, event):
                await view.update_state(event)
            elif event.document is not None:
                from ..widgets.panel_view import PanelView

                view = PanelView(event, cursor_blink=self.cursor_blink)
                self.chat_panels[event.panel] = view
                await self.chat.add(view)
        else:
            await self.sidebar.upsert(event)
            if live and not self.sidebar.display:
                document = event.document if isinstance(event.document, dict) else {}
                title = (document.get("title") or _get(event.title) or event.panel)
                state = "closed" if event.document is None else "updated"
                self.show_panel_strip(f"◆ {title} {state} · F2 or Tab to the panels")
        for request_id, panel in self.questions.items():
            if panel == event.panel:
                self.open_form(request_id, panel)

    async def on_interaction_asked(self, message: msg.InteractionAsked) -> None:
        event = message.event
        if not message.live:  # a resumed session: the request is over; its form shows how
            self.replayed_questions[event.request_id] = event.panel
            return
        self.questions[event.request_id] = event.panel
        self.count_pending()
        self.open_form(event.request_id, event.panel)

    async def on_interaction_ended(self, message: msg.InteractionEnded) -> None:
        await self._safely(message, self._interaction_settled)

    async def _interaction_settled(self, event: Any, live: bool) -> None:
        # the form answered had the focus: the composer gets it back (decided before a form
        # of the replayed history, the same one after an attach, is settled below)
        focused = list(self.focused.ancestors_with_self) if self.focused is not None else []
        answered_here = any(getattr(w, "request_id", None) == event.request_id
                            and w.has_class("form-block") for w in focused)
        replayed = self.replayed_questions.pop(event.request_id, None)
        if replayed:
            view = self.panel_view(replayed, attached=False)
            if view is not None:
                view.show_settled(event.status, _get(getattr(event, "answers", None)))
        panel = self.questions.pop(event.request_id, None)
        self.count_pending()
        for form in self.query("FormView"):
            if form.request_id == event.request_id:
                form.show_answers(_get(getattr(event, "answers", None)))  # another client's
                form.deactivate(event.status)
        if answered_here:
            self.focus_composer()
        if live:  # the form is done with: the chat follows the conversation again (its
            self.chat.anchor()  # field's focus scrolled it up to the form and let go)
        if panel is not None and self.sidebar_forced and not self.questions:
            self.sidebar_forced = False
            self.apply_sidebar()

    async def on_run_ended(self, message: msg.RunEnded) -> None:
        await self._safely(message, self._run_end)

    async def _run_end(self, event: Any, live: bool) -> None:
        await self.finish_stream()
        for view in self.tool_calls.values():  # nothing runs once the turn is over
            view.stop_running()
        self.status_line.run_end(event)
        if event.status != "completed":
            text = RUN_END_TEXT.get(event.status, event.status)
            parts = [x for x in (_get(event.code), _get(event.message)) if x and x not in text]
            detail = " ".join(dict.fromkeys(parts))  # a message that repeats the code once
            level = "warning" if event.status in ("cancelled", "max_steps") else "error"
            await self.add_notice(f"{text}{': ' + detail if detail else ''}", level)

    def on_turn_state_changed(self, message: msg.TurnStateChanged) -> None:
        if message.live:
            self.status_line.turn_state(message.event)
            if message.event.state == "idle" and self.prompt_queue.prompts:
                self.run_worker(self.send_queued(), group="queued", exclusive=True)

    async def on_hooks_reloaded(self, message: msg.HooksReloaded) -> None:
        notice = self.status_line.hooks_reload(message.event)
        if not message.event.ok:
            await self.add_notice(notice, "error")

    async def on_compacted(self, message: msg.Compacted) -> None:
        """`/compact` summarised the model's context: nothing changes on screen (a notice says
        so). `/clear` (an empty compaction that keeps no turn) empties the chat too."""
        event = message.event
        if not event.summary and not event.kept_turns:
            await self.finish_stream()
            await self.chat.clear_rows()
            self.chat_panels.clear()
            self.tool_calls.clear()

    async def on_turn_rewound(self, message: msg.TurnRewound) -> None:
        await self._safely(message, self._turn_rewind)

    async def _turn_rewind(self, event: Any, live: bool) -> None:
        """A retry or an edit: the replaced turns leave the chat as they left the model's
        context (the saved history keeps them: `raw-tui sessions show`)."""
        await self.finish_stream()
        view = next((v for v in self.chat.user_messages() if v.turn_id == event.from_turn),
                    None)
        if self.editing is not None and self.editing is view:
            self.stop_editing()
        await self.chat.drop_from(view)
        await self.add_notice(REWIND_TEXT.get(event.reason, event.reason), "info")

    async def on_files_undone(self, message: msg.FilesUndone) -> None:
        from ..undo import draw_undo

        await self._safely(message, lambda event, live: draw_undo(self, event, live))

    async def on_agent_model_switched(self, message: msg.AgentModelSwitched) -> None:
        event = message.event
        self.status_line.switch(event.agent, event.model)
        self.app.switched(event.agent, event.model)
        await self.add_notice(f"from now on: agent {event.agent} · model {event.model}",
                              "info")

    def on_usage_reported(self, message: msg.UsageReported) -> None:
        if message.live:
            self.status_line.usage(message.event)

    async def on_notice_arrived(self, message: msg.NoticeArrived) -> None:
        await self.add_notice(message.event.message, message.event.level)

    # approvals: one queue, one worker, one modal at a time --------------------------------
    @work(group="approvals", exclusive=True)
    async def approval_worker(self) -> None:
        from .approval import ApprovalScreen

        while True:
            request = await self.approval_queue.get()
            if not any(r is request for r in self.approvals):
                continue  # decided elsewhere while it waited
            self.approval_screen = ApprovalScreen(request, waiting=len(self.approvals) - 1)
            allow = await self.app.push_screen_wait(self.approval_screen)
            self.approval_screen = None
            if allow is not None and any(r is request for r in self.approvals):
                await self.app.send(ApprovalAnswer(call_id=request.call_id, allow=allow))
            self.drop_approval(request.call_id)

    def drop_approval(self, call_id: str) -> None:
        """The call was answered, decided elsewhere (a cancel, another client) or ended: a
        modal open for it closes without answering."""
        before = len(self.approvals)
        self.approvals = [r for r in self.approvals if r.call_id != call_id]
        screen = self.approval_screen
        if screen is not None and screen.request.call_id == call_id:
            screen.dismiss(None)
        self.show_waiting()
        if len(self.approvals) != before:
            self.count_pending()

    def show_waiting(self) -> None:
        screen = self.approval_screen
        if screen is not None:
            screen.set_waiting(max(len(self.approvals) - 1, 0))

    # forms --------------------------------------------------------------------------------
    def panel_view(self, panel: str, *, attached: bool = True) -> PanelView | None:
        view = self.sidebar.panels.get(panel) or self.chat_panels.get(panel)
        return view if view is not None and (view.is_attached or not attached) else None

    def open_form(self, request_id: str, panel: str) -> None:
        view = self.panel_view(panel)
        form = view.form() if view is not None else None
        if form is None or form.request_id == request_id:
            return
        if isinstance(view.parent, Sidebar) and not self.sidebar.display:
            self.sidebar_forced = True
            self.apply_sidebar()
        form.activate(request_id)
        self.call_after_refresh(view.scroll_visible, animate=False)

    def pending_forms(self) -> list[Any]:
        """The forms waiting for an answer, oldest question first."""
        from ..widgets.form_view import FormView

        order = list(self.questions)
        forms = [f for f in self.query(FormView) if f.request_id in self.questions]
        return sorted(forms, key=lambda f: order.index(f.request_id))

    def action_submit_form(self) -> None:
        """Ctrl+S outside a form (the form's own Ctrl+S comes first inside it): submit the
        one question waiting, or say why nothing was sent."""
        forms = self.pending_forms()
        if not forms:
            self.notify("Ctrl+S: no question is waiting for an answer", timeout=3)
        elif len(forms) > 1:
            self.notify(f"Ctrl+S: {len(forms)} questions are waiting; Tab into the one to "
                        "answer, then Ctrl+S", severity="warning", timeout=5)
        else:
            forms[0].action_submit()

    async def on_form_view_submitted(self, message: Any) -> None:  # FormView.Submitted
        key = f"{message.request_id}:{hash(repr(sorted(message.answers.items())))}"
        reply = await self.app.send(FormAnswer(request_id=message.request_id,
                                               answers=message.answers, idempotency_key=key),
                                    notify=False)
        if not reply.ok:
            text = reply.message or reply.code or "answer refused"
            message.form.show_error(text)
            inside = self.focused is not None and message.form in self.focused.ancestors_with_self
            if not inside:  # sent from elsewhere (Ctrl+S in the sidebar): the form may be hidden
                self.notify(f"answer refused: {text}", severity="error")
        else:
            message.form.show_error(None)
            message.form.show_waiting()

    async def on_form_view_cancelled(self, message: Any) -> None:  # FormView.Cancelled
        await self.app.send(FormCancel(request_id=message.request_id))

    # composer -----------------------------------------------------------------------------
    @property
    def prompt_queue(self) -> PromptQueue:
        return self.query_one(PromptQueue)

    async def on_composer_submitted(self, message: Composer.Submitted) -> None:
        editing = self.editing
        if editing is not None and editing.turn_id is not None:
            command: Any = EditPrompt(turn_id=editing.turn_id, text=message.text)
        elif self.prompt_queue.prompts:  # behind the ones queued before it
            self.prompt_queue.add(message.text)
            return
        else:
            command = Prompt(text=message.text)
        from ..undo import send_rewind  # an edit may restore its turns' files (ui/undo.py)

        reply = await send_rewind(self, command, notify=False)
        if not reply.ok and reply.code == BUSY and isinstance(command, Prompt):
            self.prompt_queue.add(message.text)  # a turn runs: sent when it ends
            if self.status_line.status.state == "idle":  # ... it ended meanwhile
                self.run_worker(self.send_queued(), group="queued", exclusive=True)
            return
        if not reply.ok:
            self.notify(reply.message or reply.code or "refused", severity="error")
        else:
            self.show_chat()
        if not reply.ok and not message.composer.text:
            message.composer.set_draft(message.text)
        elif reply.ok and editing is not None:
            self.stop_editing()

    async def send_queued(self) -> None:
        """The session is idle: the oldest queued prompt goes out (the next one when this
        turn ends in turn)."""
        text = self.prompt_queue.pop_first()
        if text is None:
            return
        reply = await self.app.send(Prompt(text=text), notify=False)
        if not reply.ok and reply.code == BUSY:
            self.prompt_queue.put_back(text)
        elif not reply.ok:  # refused for good: back to the composer, not lost
            self.notify(f"queued prompt not sent: {reply.message or reply.code}",
                        severity="error")
            draft = self.composer.text
            self.composer.set_draft(text + ("\n" + draft if draft else ""))

    def take_back_queued(self) -> bool:
        """Esc with prompts queued: the newest goes back into the composer, ahead of what is
        typed there. Whether there was one."""
        text = self.prompt_queue.take_last()
        if text is None:
            return False
        draft = self.composer.text
        self.composer.set_draft(text + ("\n" + draft if draft else ""))
        return True

    # retry and edit -----------------------------------------------------------------------
    def start_editing(self, view: UserMessageView) -> None:
        """The composer takes `view`'s prompt; Enter resends it in its place."""
        if view.turn_id is None:
            self.notify("this prompt cannot be edited (no turn id)", severity="warning")
            return
        self.editing = view
        self.query_one("#edit-strip", Static).display = True
        self.composer.set_draft(view.text)

    def stop_editing(self) -> None:
        self.editing = None
        self.query_one("#edit-strip", Static).display = False

    def on_chat_view_edit_requested(self, message: ChatView.EditRequested) -> None:
        self.start_editing(message.view)

    def action_edit_last(self) -> None:
        prompts = self.chat.user_messages()
        if prompts:
            self.start_editing(prompts[-1])
        else:
            self.notify("no prompt to edit", timeout=2)

    async def action_retry(self) -> None:
        self.run_worker(self.retry(), group="retry")  # its files' preview waits (ui/undo.py)

    async def retry(self) -> None:
        from ..undo import send_rewind

        reply = await send_rewind(self, Retry())
        if reply.ok and self.editing is not None:
            self.stop_editing()
            self.composer.clear()

    # search -------------------------------------------------------------------------------
    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    def on_search_bar_closed(self, message: SearchBar.Closed) -> None:
        if message.to_chat and self.chat.display:
            self.chat.focus()
        else:
            self.focus_composer()

    # navigation: Enter, copy, panel actions ------------------------------------------------
    async def on_navigator_activated(self, message: Navigator.Activated) -> None:
        from ..widgets.chat_items import UserMessageView
        from ..widgets.tool_call import ToolCallView

        target = message.target
        widget = target.widget
        if isinstance(widget, ToolCallView):
            widget.toggle()
        elif isinstance(widget, UserMessageView):
            self.start_editing(widget)
        elif isinstance(widget, HiddenRow):
            self.action_transcript()
        elif target.panel is not None:
            form = self.waiting_form(target)
            if form is not None:
                form.focus_first()
            else:
                self.open_actions(target)

    def waiting_form(self, target: Target) -> Any:
        """The form waiting for an answer at `target`: on its block, or on its panel's header
        when the panel has no action to offer there."""
        view = self.panel_view(target.panel) if target.panel else None
        form = view.form() if view is not None else None
        if form is None or form.request_id is None or not form.inputs:
            return None
        if target.block == form.block_id or (target.block is None
                                             and not self.actions_for(target)):
            return form
        return None

    def on_navigator_copy(self, message: Navigator.Copy) -> None:
        self.app.copy_to_clipboard(message.text)
        self.notify("copied to the clipboard (OSC 52)", timeout=2)

    def actions_for(self, target: Target) -> list[dict]:
        """The actions offered at the cursor, narrowest scope first: on an item its item
        actions, then its block's, then the panel's; on a block its block actions, then the
        panel's; on the panel header the panel's. Response actions belong to forms."""
        view = self.panel_view(target.panel) if target.panel else None
        if view is None:
            return []
        scopes = (["item"] if target.item is not None else []) + (
            ["block"] if target.block else []) + ["panel"]
        actions = [a for a in view.actions() if a.get("kind") != "response"
                   and _applies(a, target, view)]
        actions.sort(key=lambda a: not a.get("primary"))  # Raw's primary item action first
        return [a for scope in scopes for a in actions if a.get("scope", "panel") == scope]

    def open_actions(self, target: Target) -> None:
        actions = self.actions_for(target)
        if not actions:
            self.notify("no actions here", timeout=2)
            return
        view = self.panel_view(target.panel)
        where = view.title + (f" › {target.block}" if target.block else "") + (
            f" › {target.item}" if target.item else "")

        def run(action: dict) -> None:
            scope = action.get("scope", "panel")  # name only what the action's scope needs
            block = target.block if scope in ("block", "item") else None
            item = target.item if scope == "item" else None
            self.run_worker(self.run_panel_action(target.panel, action, block, item),
                            group="commands")

        def chosen(action: dict | None) -> None:
            if action is None:
                return
            if not action.get("confirm"):
                run(action)
                return
            # Raw's `confirm`: asked here, before the action; it is never an approval
            yes = {"id": "yes", "label": f"Yes, {action.get('label')}", "kind": "",
                   "scope": "confirm"}
            self.app.push_screen(ActionsMenu(str(action["confirm"]), [yes]),
                                 lambda answer: run(action) if answer is not None else None)

        from .actions_menu import ActionsMenu

        self.app.push_screen(ActionsMenu(where, actions), chosen)

    def panel_actions(self) -> list[tuple[str, str, dict]]:
        """(panel, title, action) of every panel-scope action on screen (the palette)."""
        out = []
        for panel in list(self.sidebar.panels) + list(self.chat_panels):
            view = self.panel_view(panel)
            for action in view.actions() if view is not None else ():
                if action.get("scope", "panel") == "panel" and action.get("kind") != "response":
                    out.append((panel, view.title, action))
        return out

    async def run_panel_action(self, panel: str, action: dict, block: str | None = None,
                               item: str | None = None) -> None:
        self.actions_running += 1
        try:
            reply = await self.app.send(PanelAction(panel=panel, action=str(action.get("id")),
                                                    block=block, item=item))
        finally:
            self.actions_running -= 1
        if reply.ok and reply.draft is not None:
            composer = self.composer
            composer.set_draft(reply.draft)
            if reply.send:
                composer.action_send()

    # actions ------------------------------------------------------------------------------
    def action_copy_text(self) -> None:
        """Ctrl+C copies text selected with the mouse; with none it goes on to the app's
        Ctrl+C (cancel the turn, or say how to quit) instead of copying nothing."""
        text = self.get_selected_text()
        if not text:
            raise SkipAction()
        self.app.copy_to_clipboard(text)

    async def action_cancel_turn(self) -> None:
        if self.editing is not None:
            self.stop_editing()
            self.composer.clear()
            return
        if self.take_back_queued():
            return
        if self.status_line.status.state == "running" or self.actions_running:
            await self.app.send(Cancel())  # the turn, and panel actions still running

    def action_toggle_sidebar(self) -> None:
        self.sidebar_forced = False
        shown = self.sidebar.display
        self.sidebar_mode = "hidden" if shown else "shown"
        self.apply_sidebar()
        if self.sidebar.display:
            self.sidebar.focus()
        elif self.focused is None or self.sidebar in self.focused.ancestors_with_self:
            self.focus_composer()

    def action_transcript(self) -> None:
        if self.chat.archive:
            from .transcript import TranscriptScreen

            self.app.push_screen(TranscriptScreen(list(self.chat.archive)))
        else:
            self.notify("no earlier items", timeout=2)

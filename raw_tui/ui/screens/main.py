"""The main screen: chat | sidebar, the composer, the status line; where the focus is and
what the keys do.

Engine events arrive as one message type (`ui/messages.py`), in order, and go to the router
of the conversation (`ui/conversation/`), whose features draw them: the transcript, tool
calls, approvals, forms, panels, prompts, the status line's state. Commands go back through
the app's client."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Static

from ...protocol.commands import Cancel
from ..conversation import ConversationFeatures
from ..textual_private import ExactScreen, draw_now, is_closing
from ..widgets.chat_view import ChatView
from ..widgets.navigator import Navigator
from ..widgets.prompt_queue import PromptQueue
from ..widgets.search_bar import SearchBar
from ..widgets.sidebar import Sidebar
from ..widgets.stand_in import ComposerStandIn
from ..widgets.status_line import StatusLine
from . import places

if TYPE_CHECKING:
    from textual.geometry import Size

    from ..messages import EngineEvent
    from ..widgets.composer import Composer
    from ..widgets.form_view import FormView

EDIT_STRIP = "✎ editing a prompt · Enter resends it (replaces what followed) · Esc stops"
WIDE = 100  # below this many columns the sidebar starts hidden


class MainScreen(ExactScreen, Screen):
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
        self.sidebar_mode = "auto"  # auto | shown | hidden
        self.sidebar_forced = False  # shown because a question arrived there
        self.cursor_blink = False
        self.conversation = ConversationFeatures(self)

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
        self.call_after_refresh(self.conversation.approvals.start)
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

    @property
    def prompt_queue(self) -> PromptQueue:
        return self.query_one(PromptQueue)

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

    def on_resize(self, event: events.Resize) -> None:
        """The new size is the event's (the app's may still be the old one)."""
        self.apply_sidebar(event.size)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Say in the status line where the keyboard is."""
        self.status_line.show_place(places.place_of(self.focused))

    def apply_sidebar(self, size: Size | None = None) -> None:
        """Wide: chat | sidebar (in `auto`, while the sidebar holds a panel). Narrow (below
        WIDE columns): one view at a time, the chat or the panels (the sidebar at full
        width), switched by F2 or by Tab."""
        if self.lay_out(self.chat, self.sidebar, size or self.app.size):
            self.show_panel_strip("")

    def lay_out(self, chat: ChatView, sidebar: Sidebar, size: Size) -> bool:
        """Show or hide the chat and the sidebar for `size`; whether the sidebar shows."""
        width, height = size
        wide = width >= WIDE
        sidebar.display = (self.sidebar_mode == "shown" or self.sidebar_forced
                           or (self.sidebar_mode == "auto" and wide and bool(sidebar.panels)))
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

    def show_edit_strip(self, shown: bool) -> None:
        self.query_one("#edit-strip", Static).display = shown

    def action_cycle(self, step: int) -> None:
        """Tab / Shift+Tab: the next place (screens/places.py)."""
        places.cycle(self, step)

    # engine events, to the conversation ---------------------------------------------------
    async def on_engine_event(self, message: EngineEvent) -> None:
        await self.conversation.route(message.event, message.live)

    def draw_now(self) -> None:
        """Lay out and draw the screen at once, for the prompt the user just sent. Textual
        draws only when the screen's queue is empty, at its next frame tick (60 a second): an
        instant reply queued behind the prompt's event, and the frame that cleared the
        composer, put the prompt two frames (~35 ms) after Enter. Once per prompt, so the
        frame rate stays bounded. Textual has no public call for it (docs/decisions.md)."""
        draw_now(self)  # after the first frame (ui/textual_private.py)

    # the widgets' messages ----------------------------------------------------------------
    async def on_composer_submitted(self, message: Composer.Submitted) -> None:
        await self.conversation.prompts.submitted(message)

    async def on_form_view_submitted(self, message: FormView.Submitted) -> None:
        await self.conversation.forms.submitted(message)

    async def on_form_view_cancelled(self, message: FormView.Cancelled) -> None:
        await self.conversation.forms.cancelled(message)

    def on_chat_view_edit_requested(self, message: ChatView.EditRequested) -> None:
        self.conversation.prompts.start_editing(message.view)

    def on_search_bar_closed(self, message: SearchBar.Closed) -> None:
        if message.to_chat and self.chat.display:
            self.chat.focus()
        else:
            self.focus_composer()

    def on_navigator_activated(self, message: Navigator.Activated) -> None:
        self.conversation.activate(message.target)

    def on_navigator_copy(self, message: Navigator.Copy) -> None:
        self.app.copy_to_clipboard(message.text)
        self.notify("copied to the clipboard (OSC 52)", timeout=2)

    # actions ------------------------------------------------------------------------------
    def action_submit_form(self) -> None:
        self.conversation.forms.submit_one()

    def action_edit_last(self) -> None:
        self.conversation.prompts.edit_last()

    async def action_retry(self) -> None:
        # a worker: the preview of the files it may restore is awaited (conversation/undo.py)
        self.run_worker(self.conversation.prompts.retry(), group="retry")

    def action_search(self) -> None:
        self.query_one(SearchBar).open()

    def action_copy_text(self) -> None:
        """Ctrl+C copies text selected with the mouse; with none it goes on to the app's
        Ctrl+C (cancel the turn, or say how to quit) instead of copying nothing."""
        text = self.get_selected_text()
        if not text:
            raise SkipAction()
        self.app.copy_to_clipboard(text)

    async def action_cancel_turn(self) -> None:
        prompts = self.conversation.prompts
        if prompts.editing is not None:
            prompts.stop_editing()
            self.composer.clear()
            return
        if prompts.take_back_queued():
            return
        if self.status_line.status.state == "running" \
                or self.conversation.panels.actions_running:
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

"""Search the chat (Ctrl+F anywhere, `/` in the chat): one line above the composer. Rows of
the chat that contain the text (any case) are marked; the cursor of the chat goes to one
match at a time, newest first: Enter (or Down, `n` in the chat) goes to the next older
match, Shift+Enter (or Up, `N`) to the next newer one, wrapping around. Esc closes it and
leaves the keyboard in the chat on the match (Enter, `c`, `e` act on it there).

Only rows on screen are searched; rows pruned from view are in the transcript (Ctrl+O)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from .navigator import Target


class SearchBar(Horizontal):
    HELP = ("Search the chat: type the text. **Enter**/**Down** next match (older), "
            "**Shift+Enter**/**Up** previous (newer), **Esc** closes and stays on the match.")
    BINDINGS = [
        Binding("down", "step(1)", "Next match", id="search.next", show=False),
        Binding("shift+enter,up", "step(-1)", "Previous match", id="search.previous",
                show=False),
        Binding("escape", "close", "Close search", id="search.close"),
    ]

    @dataclass
    class Closed(Message):
        """Esc: the search bar is gone; `to_chat` when a match was shown (focus goes there)."""

        to_chat: bool

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.matches: list[Widget] = []  # newest first
        self.index = 0

    def on_mount(self) -> None:
        self.display = False

    def _build(self) -> None:
        """The label, the input and the count, mounted on first use: the first frame (the
        bar is hidden) does not pay for an `Input` (its styles, its compose)."""
        search_input = Input(placeholder="search the chat", id="search-input")
        search_input.cursor_blink = False  # no traffic while idle (an open search included)
        self.mount(Static(Text("/ ", style="bold"), id="search-label"), search_input,
                   Static(id="search-count"))

    @property
    def input(self) -> Input:
        if not self.children:
            self._build()
        return self.query_one("#search-input", Input)

    def open(self) -> None:
        """Show the bar and take the keyboard (the last query is kept, selected)."""
        self.display = True
        self.input.cursor_blink = getattr(self.screen, "cursor_blink", False)
        self.input.focus()
        if self.input.value:
            self.find(self.input.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.find(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.step(1)

    def find(self, query: str) -> None:
        """Mark every row holding `query` (while the bar shows) and go to the newest one."""
        self._unmark()
        needle = query.casefold()
        chat = self.screen.query_one("#chat")
        rows = [w for w in chat.rows() if w.display] if needle else []
        self.matches = [w for w in reversed(rows) if needle in _text(w).casefold()]
        for widget in self.matches if self.display else ():
            widget.add_class("-match")
        self.index = 0
        self._show()

    def step(self, step: int) -> None:
        """The next older (1) or newer (-1) match; from the chat after Esc (`n`, `N`), the
        last search is run again first. With no search yet, the bar opens."""
        if not self.input.value:
            self.open()
            return
        if not self.matches:  # again from the chat: from the match its cursor is on
            cursor = self.screen.query_one("#chat").cursor
            at = cursor.widget if cursor is not None else None
            self.find(self.input.value)
            self.index = self.matches.index(at) if at in self.matches else 0
        if not self.matches:
            self.app.bell()
            return
        self.index = (self.index + step) % len(self.matches)
        self._show()

    def _show(self) -> None:
        count = self.query_one("#search-count", Static)
        if not self.input.value:
            count.update("")
            return
        if not self.matches:
            count.update(Text(" no match", style="bold red"))
            return
        count.update(Text(f" {self.index + 1}/{len(self.matches)}", style="bold"))
        widget = self.matches[self.index]
        if not widget.is_attached:
            return
        from .panel_view import PanelView

        target = Target(widget)
        if isinstance(widget, PanelView):
            target = next(iter(widget.targets()), target)
        self.screen.query_one("#chat").set_cursor(target)

    def _unmark(self) -> None:
        for widget in self.matches:
            widget.remove_class("-match")
        self.matches = []

    def action_step(self, step: int) -> None:
        self.step(step)

    def action_close(self) -> None:
        shown = bool(self.matches)
        self._unmark()
        self.display = False
        self.post_message(self.Closed(to_chat=shown))


def _text(widget: Widget) -> str:
    try:
        return getattr(widget, "plain_text", lambda: "")() or ""
    except Exception:  # a row that cannot say itself as text does not match
        return ""

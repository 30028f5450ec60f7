"""The composer: Enter sends, Alt+Enter (or Ctrl+J, Shift+Enter) adds a newline, Up/Down walk
the history when the cursor is on the first/last line.

The composer's own bindings are not priority bindings: a priority binding runs on the app's
queue as soon as the key is parsed, before the composer has inserted the characters typed just
before it (a burst like `tmux send-keys "hello" Enter` arrives in one read), so Enter would
send an empty composer. Instead the composer runs its bindings itself, in key order."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from ..textual_private import KeyBeforeTextArea
from .stand_in import PLACEHOLDER


class Composer(KeyBeforeTextArea, TextArea):
    HELP = ("Type a message. **Enter** sends; **Alt+Enter**, **Ctrl+J** (and **Shift+Enter** "
            "where the terminal tells it from Enter) add a newline; **Up/Down** walk the "
            "history. Sent while a turn runs, a prompt is queued (**Esc** takes it back).")

    BINDINGS = [
        Binding("enter", "send", "Send", id="composer.send"),
        Binding("ctrl+j,shift+enter,alt+enter", "newline", "Newline", id="composer.newline"),
        Binding("up", "history_previous", "History", id="composer.history_previous",
                show=False),
        Binding("down", "history_next", "History", id="composer.history_next", show=False),
    ]

    @dataclass
    class Submitted(Message):
        """Enter: the text to send."""

        composer: "Composer"
        text: str

        @property
        def control(self) -> "Composer":
            return self.composer

    def __init__(self, *, cursor_blink: bool = False, **kwargs) -> None:
        super().__init__(soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
                         **kwargs)
        self.cursor_blink = cursor_blink
        self.placeholder = PLACEHOLDER
        self.sent: list[str] = []
        self._history_at: int | None = None
        self._draft = ""

    async def key_first(self, event: events.Key) -> bool:
        """Run this widget's binding for the key here, after the keys typed before it (the
        text area would otherwise insert Enter as a newline). An action that skips (Ctrl+C's
        copy with nothing selected) lets the key go on to the screen's and the app's."""
        if not event.is_printable:
            active = self.screen.active_bindings.get(event.key)
            if active is not None and active.node is self and active.enabled:
                event.prevent_default()
                if await self.app.run_action(active.binding.action, self):
                    event.stop()
                    return True
        return False

    def action_send(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._history_at = None
        self.clear()
        self.post_message(self.Submitted(self, text))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_history_previous(self) -> None:
        if self.cursor_location[0] > 0 or not self.sent:
            self.action_cursor_up()
            return
        if self._history_at is None:
            self._draft = self.text
            self._history_at = len(self.sent)
        if self._history_at > 0:
            self._history_at -= 1
            self._show(self.sent[self._history_at])

    def action_history_next(self) -> None:
        if self.cursor_location[0] < self.document.line_count - 1 or self._history_at is None:
            self.action_cursor_down()
            return
        self._history_at += 1
        if self._history_at >= len(self.sent):
            self._history_at = None
            self._show(self._draft)
        else:
            self._show(self.sent[self._history_at])

    def _show(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    def set_draft(self, text: str) -> None:
        """Fill the composer (a prompt action's draft) and focus it."""
        self._history_at = None
        self._show(text)
        self.focus()

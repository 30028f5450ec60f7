"""The chat: rows in order, kept to the last `max_items` mounted widgets. Older rows are
pruned from the DOM in batches; their text is kept, and the "N earlier items hidden" row at
the top opens it (scroll-back without keeping thousands of widgets alive).

A resumed session's history is added in a batch: rows are collected unmounted, and only the
last `max_items` are mounted (the others go to the archive at once), so reopening a long
session costs what its last screens cost."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from .navigator import Navigator, Target, nav_bindings
from .search_bar import SearchBar

PRUNE_SLACK = 20  # prune when this many rows over the limit, so mounting stays cheap


class HiddenRow(Static):
    """Stands for the chat rows that were pruned; Enter shows them as text."""

    def __init__(self) -> None:
        super().__init__(classes="chat-item hidden-row")
        self.count = 0

    def set_count(self, count: int) -> None:
        self.count = count
        self.update(Text(f"▲ {count} earlier item{'s' * (count != 1)} hidden · "
                         "Enter shows them", style="dim italic"))

    def plain_text(self) -> str:
        return ""


class ChatView(Navigator):
    HELP = ("The conversation. **Up/Down** move, **Enter** opens a tool call or a panel's "
            "actions, on a prompt of yours **Enter** or **e** edits and resends it, **c** "
            "copies, **u** undoes the file changes of the turn at the cursor and later ones (a preview first), **/** searches (**n/N** next and previous match), "
            "**Home/End** go to the first and the last row, **PageUp/PageDown** scroll.")
    BINDINGS = nav_bindings("chat") + [
        Binding("home", "cursor_first", "First row", id="chat.first", show=False),
        Binding("end", "cursor_last", "Last row", id="chat.last", show=False),
        Binding("e", "edit", "Edit prompt", id="chat.edit", show=False),
        Binding("u", "undo_turn", "Undo file changes", id="chat.undo", show=False),
        Binding("slash", "search", "Search", id="chat.search", show=False),
        Binding("n", "search_step(1)", "Next match", id="chat.next_match", show=False),
        Binding("N", "search_step(-1)", "Previous match", id="chat.previous_match",
                show=False),
    ]

    @dataclass
    class EditRequested(Message):
        """`e` on a prompt: edit it and send it again."""

        view: Widget

    def __init__(self, *, max_items: int = 100, **kwargs) -> None:
        super().__init__(**kwargs)
        self.max_items = max_items
        self.hidden_row = HiddenRow()
        self.archive: list[str] = []
        self._batch: list[Widget] | None = None

    def compose(self):
        self.hidden_row.display = False
        yield self.hidden_row

    def on_mount(self) -> None:
        self.anchor()

    def rows(self) -> list[Widget]:
        return [c for c in self.children if c is not self.hidden_row]

    def begin_batch(self) -> None:
        self._batch = []

    async def end_batch(self) -> None:
        rows, self._batch = self._batch or [], None
        keep = max(len(rows) - self.max_items, 0)
        for widget in rows[:keep]:
            self.archive.append(_plain(widget))
        if keep:
            self.hidden_row.set_count(len(self.archive))
            self.hidden_row.display = True
        if rows[keep:]:
            await self.mount_all(rows[keep:])

    def holds(self, widget: Widget) -> bool:
        """The widget is a row of the chat (mounted, or waiting in a batch)."""
        return widget.is_attached or (self._batch is not None and widget in self._batch)

    async def add(self, widget: Widget) -> Widget:
        if self._batch is not None:
            self._batch.append(widget)
            return widget
        await self.mount(widget)
        rows = self.rows()
        if len(rows) > self.max_items + PRUNE_SLACK:
            await self.prune(rows)
        return widget

    async def add_first(self, widget: Widget) -> Widget:
        """A row above all the others (the first run's welcome card)."""
        await self.mount(widget, after=self.hidden_row)
        return widget

    async def prune(self, rows: list[Widget]) -> None:
        drop = [w for w in rows[: len(rows) - self.max_items] if not _live(w)]
        if not drop:
            return
        for widget in drop:
            self.archive.append(_plain(widget))
        await self.remove_children(drop)
        self.hidden_row.set_count(len(self.archive))
        self.hidden_row.display = True

    async def clear_rows(self) -> None:
        """`/clear`: the screen starts over too (the earlier rows are not kept for scroll-back)."""
        self.archive.clear()
        if self._batch is not None:
            self._batch.clear()
        self.hidden_row.display = False
        await self.remove_children(self.rows())

    async def drop_from(self, widget: Widget | None) -> None:
        """A retry or an edit replaced the turns from `widget`'s on: remove it and every row
        after it (every row when it is gone from view already). Panels stay: they are the
        session's state, which a retry does not undo (a resumed session shows them too),
        and an undo's result."""
        if self._batch is not None:
            in_batch = widget in self._batch
            start = self._batch.index(widget) if in_batch else 0
            self._batch[start:] = [w for w in self._batch[start:] if _stays(w)]
            if in_batch:
                return
        rows = self.rows()
        index = rows.index(widget) if widget in rows else 0
        drop = [w for w in rows[index:] if not _stays(w)]
        if self.cursor is not None and self.cursor.widget in drop:
            self.cursor = None
        await self.remove_children(drop)

    def user_messages(self) -> list[Widget]:
        """The prompts on screen (mounted, or waiting in a batch), oldest first."""
        from .chat_items import UserMessageView

        rows = self._batch if self._batch is not None else self.rows()
        return [w for w in rows if isinstance(w, UserMessageView)]

    def action_edit(self) -> None:
        from .chat_items import UserMessageView

        widget = self.cursor.widget if self.cursor is not None else None
        if isinstance(widget, UserMessageView):
            self.post_message(self.EditRequested(widget))
        else:
            self.notify("e edits a prompt of yours: move to one with Up/Down", timeout=2)

    def action_undo_turn(self) -> None:
        self.screen.conversation.undo.at_cursor()  # conversation/undo.py

    def action_cursor_first(self) -> None:
        """Home: the cursor to the first row, and the chat scrolled to its top (VerticalScroll's
        own Home scrolls and leaves the cursor where it was: the next Up jumped back)."""
        targets = self.targets()
        if targets:
            self.set_cursor(targets[0])
        self.scroll_home(animate=False, immediate=True)

    def action_cursor_last(self) -> None:
        """End: the cursor to the last row, and the chat scrolled to its end (a tall last row
        shows its bottom, where new text arrives). Scrolled now, not after the next refresh:
        deferred, the scroll was made but not drawn in a real terminal after an edit
        (tests/e2e/test_chat_home_end_tmux.py)."""
        targets = self.targets()
        if targets:
            self.set_cursor(targets[-1])
        self.scroll_end(animate=False, immediate=True)

    def action_search(self) -> None:
        self.screen.query_one(SearchBar).open()

    def action_search_step(self, step: int) -> None:
        self.screen.query_one(SearchBar).step(step)

    def targets(self) -> list[Target]:
        from .panel_view import PanelView

        out: list[Target] = []
        for child in self.children:
            if not child.display:
                continue
            if isinstance(child, PanelView):
                out.extend(child.targets())
            else:
                out.append(Target(child))
        return out


def _stays(widget: Widget) -> bool:
    """What a retry or an edit leaves in the chat: panels (the session's state) and the
    result of an undo (the files it put back stay put back: conversation/undo.py)."""
    from .panel_view import PanelView

    return isinstance(widget, PanelView) or getattr(widget, "survives_rewind", False)


def _plain(widget: Widget) -> str:
    try:
        return getattr(widget, "plain_text", lambda: "")()
    except Exception:  # a row that cannot say itself as text is archived empty
        return ""


def _live(widget: Widget) -> bool:
    """Rows that must stay: a message still streaming, a form waiting for an answer."""
    # an assistant message streaming (widgets/assistant.py, loaded with the first one)
    if getattr(widget, "is_streaming", False):
        return True
    from .panel_view import PanelView

    if isinstance(widget, PanelView):
        form = widget.form()
        return form is not None and form.request_id is not None
    return False

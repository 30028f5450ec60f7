"""The chat: rows in order, kept to the last `max_items` mounted widgets. Older rows are
pruned from the DOM in batches; their text is kept, and the "N earlier items hidden" row at
the top opens it (scroll-back without keeping thousands of widgets alive).

A resumed session's history is added in a batch: rows are collected unmounted, and only the
last `max_items` are mounted (the others go to the archive at once), so reopening a long
session costs what its last screens cost."""

from __future__ import annotations

from textual.widget import Widget

from .chat_items import HiddenRow
from .navigator import Navigator, nav_bindings
from .panel_view import PanelView, Target

PRUNE_SLACK = 20  # prune when this many rows over the limit, so mounting stays cheap


class ChatView(Navigator):
    HELP = ("The conversation. **Up/Down** move, **Enter** opens a tool call or a panel's "
            "actions, **c** copies, **PageUp/PageDown** scroll.")
    BINDINGS = nav_bindings("chat")

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

    def targets(self) -> list[Target]:
        out: list[Target] = []
        for child in self.children:
            if not child.display:
                continue
            if isinstance(child, PanelView):
                out.extend(child.targets())
            else:
                out.append(Target(child))
        return out


def _plain(widget: Widget) -> str:
    try:
        return getattr(widget, "plain_text", lambda: "")()
    except Exception:  # a row that cannot say itself as text is archived empty
        return ""


def _live(widget: Widget) -> bool:
    """Rows that must stay: a message still streaming, a form waiting for an answer."""
    if getattr(widget, "_stream", None) is not None:  # an assistant message streaming
        return True
    if isinstance(widget, PanelView):
        form = widget.form()
        return form is not None and form.request_id is not None
    return False

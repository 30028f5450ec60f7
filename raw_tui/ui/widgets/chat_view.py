"""The chat: rows in order, kept to the last `max_items` mounted widgets. Older rows are
pruned from the DOM in batches; their text is kept, and the "N earlier items hidden" row at
the top opens it (scroll-back without keeping thousands of widgets alive)."""

from __future__ import annotations

from textual.widget import Widget

from .chat_items import AssistantMessageView, HiddenRow
from .navigator import Navigator, nav_bindings
from .panel_view import PanelView, Target

PRUNE_SLACK = 20  # prune when this many rows over the limit, so mounting stays cheap


class ChatView(Navigator):
    HELP = ("The conversation. **Up/Down** move, **Enter** opens a tool call or a panel's "
            "actions, **c** copies, **PageUp/PageDown** scroll.")
    BINDINGS = nav_bindings("chat")

    def __init__(self, *, max_items: int = 200, **kwargs) -> None:
        super().__init__(**kwargs)
        self.max_items = max_items
        self.hidden_row = HiddenRow()
        self.archive: list[str] = []

    def compose(self):
        self.hidden_row.display = False
        yield self.hidden_row

    def on_mount(self) -> None:
        self.anchor()

    def rows(self) -> list[Widget]:
        return [c for c in self.children if c is not self.hidden_row]

    async def add(self, widget: Widget) -> Widget:
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
            self.archive.append(getattr(widget, "plain_text", lambda: "")())
        await self.remove_children(drop)
        self.hidden_row.set_count(len(self.archive))
        self.hidden_row.display = True

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


def _live(widget: Widget) -> bool:
    """Rows that must stay: a message still streaming, a form waiting for an answer."""
    if isinstance(widget, AssistantMessageView):
        return widget._stream is not None
    if isinstance(widget, PanelView):
        form = widget.form()
        return form is not None and form.request_id is not None
    return False

"""Keyboard cursor shared by the chat and the sidebar: Up/Down move over rows, panels,
blocks and items; Enter opens what is under the cursor; `c` copies it (OSC 52)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message

if TYPE_CHECKING:
    from textual.widget import Widget


class Target(msgspec.Struct, frozen=True):
    """Where the keyboard cursor is: a panel (header), a block, or an item of a block; or a
    plain chat row (panel None)."""

    widget: Widget
    panel: str | None = None
    block: str | None = None
    item: str | None = None

    def same(self, other: "Target | None") -> bool:
        return other is not None and (self.widget, self.item) == (other.widget, other.item)


class Navigator(VerticalScroll, can_focus=True):
    BINDING_PREFIX = "nav"
    PANEL_LIST = False  # Up/Down on a panel header go to the next panel's header

    @dataclass
    class Activated(Message):
        """Enter on a target."""

        navigator: "Navigator"
        target: Target

        @property
        def control(self) -> "Navigator":
            return self.navigator

    @dataclass
    class Copy(Message):
        """`c` on a target: its text, for the clipboard."""

        navigator: "Navigator"
        text: str

        @property
        def control(self) -> "Navigator":
            return self.navigator

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cursor: Target | None = None

    def targets(self) -> list[Target]:  # overridden
        return []

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys typed while a form inside this view has the focus are the form's: none of
        this view's keys (its one-letter ones: `n`, `e`, `c`, `/`, `j`, `k`) acts on them."""
        focused = self.screen.focused if self.is_attached else None
        if focused is not None and focused is not self and any(
                w.has_class("form-block") for w in focused.ancestors_with_self):
            return False
        return True

    # moving -------------------------------------------------------------------------------
    def _index(self, targets: list[Target]) -> int | None:
        for i, t in enumerate(targets):
            if t.same(self.cursor):
                return i
        return None

    def move(self, delta: int) -> None:
        targets = self.targets()
        if not targets:
            return
        i = self._index(targets)
        if i is None:
            i = len(targets) - 1 if delta < 0 or self.id == "chat" else 0
        elif self.PANEL_LIST and targets[i].panel is not None and targets[i].block is None:
            headers = [j for j, t in enumerate(targets) if t.block is None]
            at = headers.index(i) + delta
            i = headers[max(0, min(len(headers) - 1, at))]
        else:
            i = max(0, min(len(targets) - 1, i + delta))
        self.set_cursor(targets[i])

    def action_enter_panel(self) -> None:
        """From a panel's header to its first block (Right). Not from inside a form."""
        if not self.has_focus:
            return
        targets = self.targets()
        i = self._index(targets)
        if i is not None and i + 1 < len(targets) and targets[i].block is None \
                and targets[i + 1].panel == targets[i].panel:
            self.set_cursor(targets[i + 1])

    def action_leave_panel(self) -> None:
        """From a block or an item back to its panel's header (Left). Not from inside a form."""
        cursor = self.cursor
        if not self.has_focus or cursor is None or cursor.block is None:
            return
        header = next((t for t in self.targets()
                       if t.panel == cursor.panel and t.block is None), None)
        if header is not None:
            self.set_cursor(header)

    def set_cursor(self, target: Target | None) -> None:
        from .panel_view import BlockView  # (not before the first frame: it draws no panel)

        old = self.cursor
        if old is not None and old.widget.is_attached:
            if isinstance(old.widget, BlockView):
                old.widget.set_cursor_item(None)
            old.widget.remove_class("-cursor")
        self.cursor = target
        if target is None:
            return
        if target.item is not None and isinstance(target.widget, BlockView):
            target.widget.set_cursor_item(target.item)
        else:
            target.widget.add_class("-cursor")
        self.scroll_to_widget(target.widget, animate=False)

    def on_focus(self) -> None:
        targets = self.targets()
        if self.cursor is None or self._index(targets) is None:
            self.cursor = None
            if targets:
                self.set_cursor(targets[-1] if self.id == "chat" else targets[0])

    def action_cursor_up(self) -> None:
        self.move(-1)

    def action_cursor_down(self) -> None:
        self.move(1)

    def action_activate(self) -> None:
        targets = self.targets()
        if self.cursor is not None and self._index(targets) is not None:
            self.post_message(self.Activated(self, self.cursor))

    def action_copy(self) -> None:
        target = self.cursor
        if target is None or not target.widget.is_attached:
            return
        widget = target.widget
        from .panel_view import BlockView, PanelView

        if target.item is not None and isinstance(widget, BlockView):
            text = widget.item_text(target.item)
        elif target.block is None and isinstance(widget.parent, PanelView):
            text = widget.parent.plain_text()
        else:
            text = getattr(widget, "plain_text", lambda: "")()
        self.post_message(self.Copy(self, text))


def nav_bindings(prefix: str) -> list[Binding]:
    return [
        Binding("up,k", "cursor_up", "Up", id=f"{prefix}.up", show=False),
        Binding("down,j", "cursor_down", "Down", id=f"{prefix}.down", show=False),
        Binding("enter", "activate", "Open / actions", id=f"{prefix}.activate"),
        Binding("c,y", "copy", "Copy", id=f"{prefix}.copy"),
    ]

"""The sidebar: one section per sidebar panel, in the order they were first drawn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from .navigator import Navigator, Target, nav_bindings

if TYPE_CHECKING:
    from ...protocol import bus as ev
    from .panel_view import PanelView


class Sidebar(Navigator):
    """The panel list: on a panel's header Up/Down go from panel to panel; Right goes into
    the panel (its blocks and items, walked by Up/Down), Left back to its header."""

    HELP = ("Live panels. **Up/Down** move from panel to panel; **Right** goes into a panel "
            "(Up/Down then walk its blocks and items), **Left** back to its header; "
            "**Enter** opens the actions; **c** copies.")
    PANEL_LIST = True
    BINDINGS = nav_bindings("sidebar") + [
        Binding("right,l", "enter_panel", "Into the panel", id="sidebar.enter_panel",
                show=False),
        Binding("left,h", "leave_panel", "Panel header", id="sidebar.leave_panel",
                show=False),
    ]

    def __init__(self, *, cursor_blink: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cursor_blink = cursor_blink
        self.panels: dict[str, PanelView] = {}
        self.empty = Static(Text("No panels yet.", style="dim italic"), classes="sidebar-empty")

    def compose(self):
        yield self.empty

    async def upsert(self, state: ev.PanelState) -> PanelView | None:
        view = self.panels.get(state.panel)
        if state.document is None:
            if view is not None:
                del self.panels[state.panel]
                await view.remove()
            self.empty.display = not self.panels
            return None
        if view is None:
            from .panel_view import PanelView  # (not before the first frame: it draws none)

            view = PanelView(state, cursor_blink=self.cursor_blink)
            self.panels[state.panel] = view
            self.empty.display = False
            await self.mount(view)
        else:
            await view.update_state(state)
        return view

    def targets(self) -> list[Target]:
        out: list[Target] = []
        for view in self.panels.values():
            out.extend(view.targets())
        return out

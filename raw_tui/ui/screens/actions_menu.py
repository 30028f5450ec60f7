"""The small menu of a panel's, a block's or an item's actions."""

from __future__ import annotations


from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..styles import stylesheet
from ..textual_private import ExactScreen



def option_text(action: dict) -> str:
    """`Label  ·  kind · scope` (scope: panel, block or item)."""
    return (f"{action.get('label', action.get('id'))}  ·  {action.get('kind', '')} · "
            f"{action.get('scope', 'panel')}")


class ActionsMenu(ExactScreen, ModalScreen[dict | None]):
    CSS_PATH = stylesheet("actions_menu")
    HELP = "Choose an action with **Up/Down** and **Enter**; **Esc** closes."
    BINDINGS = [Binding("escape", "close", "Close", id="actions.close")]

    def __init__(self, title: str, actions: list[dict]) -> None:
        super().__init__()
        self.menu_title = title
        self.actions = actions

    def compose(self) -> ComposeResult:
        with Vertical(id="actions-dialog"):
            yield Static(self.menu_title, id="actions-title")
            yield OptionList(*(Option(option_text(a), id=str(i))
                               for i, a in enumerate(self.actions)), id="actions-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.actions[int(event.option.id)])

    def action_close(self) -> None:
        self.dismiss(None)

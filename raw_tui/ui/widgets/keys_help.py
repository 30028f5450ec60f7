"""F1: the focused widget's help and raw-tui's own keys where it is — not the generic keys
Textual's widgets bring (a text area's cursor keys, a scroll view's Home/End/PageUp), which
every terminal user knows and which would push the help off an 80×24 screen. A key is raw-tui's
when its binding has one of the ids of raw_tui/ui/binding_ids.py; Ctrl+C (Textual's, with
raw-tui's meaning) is listed too."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import HelpPanel, Markdown, Static

from ..binding_ids import BINDING_IDS

OWN = set(BINDING_IDS)
TEXTUAL_KEPT = {"help_quit": "Cancel / quit (twice)"}  # Textual's binding, raw-tui's meaning


class OwnKeys(Static):
    def refresh_keys(self) -> None:
        rows: dict[str, tuple[list[str], str]] = {}
        for _, binding, enabled, _ in self.screen.active_bindings.values():
            if not enabled or binding.system:
                continue
            if binding.id in OWN:
                description = binding.description or binding.action
            elif binding.action in TEXTUAL_KEPT:
                description = TEXTUAL_KEPT[binding.action]
            else:
                continue
            keys, _ = rows.setdefault(binding.action, ([], description))
            shown = self.app.get_key_display(binding)
            if shown not in keys:
                keys.append(shown)
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", style="bold")
        table.add_column()
        for keys, description in rows.values():
            table.add_row(Text(" ".join(keys)), Text(description))
        self.update(table)


class KeysHelp(HelpPanel):
    DEFAULT_CSS = """
    KeysHelp {
        width: 45%;
        min-width: 34;
        max-width: 56;
        #widget-help {
            max-height: 60%;
            padding: 0;
            margin-top: 0;
        }
        #keys-help-scroll {
            height: 1fr;
        }
    }
    """

    def compose(self):
        yield Markdown(id="widget-help")
        with VerticalScroll(id="keys-help-scroll"):
            yield OwnKeys(id="keys-help")

    def on_mount(self) -> None:
        super().on_mount()
        self.call_after_refresh(self._refresh_keys)

    def update_help(self, focused_widget) -> None:
        super().update_help(focused_widget)
        self.call_after_refresh(self._refresh_keys)

    def _refresh_keys(self) -> None:
        for keys in self.query(OwnKeys):
            keys.refresh_keys()

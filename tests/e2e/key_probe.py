"""A Textual app on raw-tui's own terminal driver (raw_tui/ui/driver.py) that writes the name
of every key it reads, one a line, to the file named by its first argument: what the UI
would get for the bytes a terminal sends (tests/e2e/test_terminal_keys.py)."""

from __future__ import annotations

import sys

from textual import events
from textual.app import App
from textual.widgets import Static

from raw_tui.ui.app import raw_driver_class


class KeyProbe(App):
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, out: str) -> None:
        super().__init__()
        self.out = open(out, "a", encoding="utf-8", buffering=1)

    def get_driver_class(self):
        return raw_driver_class(super().get_driver_class())

    def compose(self):
        yield Static("key probe ready")

    async def on_event(self, event: events.Event) -> None:
        """Every key, before any binding (Ctrl+Q, Ctrl+C) sees it."""
        if isinstance(event, events.Key):
            if event.key == "ctrl+underscore":  # the test's own end (not in the key table)
                self.exit()
            else:
                self.out.write(f"{event.key}\n")
            return
        await super().on_event(event)


if __name__ == "__main__":
    KeyProbe(sys.argv[1]).run()

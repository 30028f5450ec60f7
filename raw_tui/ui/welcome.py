"""The welcome screen of a first run: what the gate does in three lines, the keys in one.
Any key dismisses it. It shows once: the UI's preferences file (`ui.json` in the XDG state
directory, prefs.py) remembers it was shown; a session whose history holds a prompt never
shows it, nor does `RAW_TUI_WELCOME=off` (scripts, tests)."""

from __future__ import annotations

import os

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from .styles import stylesheet

WELCOME_ENV = "RAW_TUI_WELCOME"  # `off`: never show it

GATE = (
    "Every tool call the agent makes passes a gate before anything runs:",
    "1. its arguments are checked, what it would change is worked out;",
    "2. your rules allow, ask or deny it, and your hooks may veto it;",
    "3. on ask, you see the change and approve (a) or deny (d) it here.",
)
KEYS = "Enter send  ^J newline  Esc cancel  Tab panels  ^P commands  ^Q quit"


def first_run(seen: bool) -> bool:
    """The welcome was not `seen` yet (and is not switched off)."""
    return not seen and os.environ.get(WELCOME_ENV, "").lower() not in ("off", "0", "no")


class WelcomeScreen(ModalScreen[None]):
    CSS_PATH = stylesheet("welcome")
    HELP = "The first run's welcome. **Any key** closes it."

    def compose(self) -> ComposeResult:
        with Vertical(id="welcome"):
            yield Static(Text("Welcome to raw-tui", style="bold"), id="welcome-title")
            yield Static(Text(GATE[0]), classes="welcome-gate")
            for line in GATE[1:]:
                yield Static(Text(line), classes="welcome-gate step")
            yield Static(Text(KEYS, style="bold"), id="welcome-keys")
            yield Static(Text("Press any key to start.", style="dim italic"), id="welcome-hint")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.close()

    def on_click(self, event: events.Click) -> None:
        self.close()

    def close(self) -> None:
        if self.is_current:
            self.dismiss(None)

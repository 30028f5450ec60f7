"""The welcome screen of a first run: what the gate does in three lines, the keys in one.
Any key dismisses it. It shows once per state directory: a flag file
`$XDG_STATE_HOME/raw-tui/welcome-seen` (platformdirs) remembers it was seen; a resumed
session (a prompt in the history it draws) never shows it, nor does `RAW_TUI_WELCOME=off` (scripts, tests)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from rich.text import Text
from textual import events, log
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


def flag_path() -> Path:
    return Path(platformdirs.user_state_dir("raw-tui", appauthor=False)) / "welcome-seen"


def first_run() -> bool:
    """No welcome seen yet in this state directory (and not switched off)."""
    if os.environ.get(WELCOME_ENV, "").lower() in ("off", "0", "no"):
        return False
    return not flag_path().exists()


def mark_seen() -> None:
    try:
        path = flag_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    except OSError as err:  # a read-only state dir: shown again next time, nothing worse
        log.error(f"welcome flag: {err!r}")


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

    def on_mount(self) -> None:
        mark_seen()  # shown once, even if the app is quit (Ctrl+Q) while it shows

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.close()

    def on_click(self, event: events.Click) -> None:
        self.close()

    def close(self) -> None:
        if self.is_current:
            self.dismiss(None)

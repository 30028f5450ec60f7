"""The welcome of a first run: a card at the top of the chat saying what the gate does in
three lines, the keys in one. It greets and takes no input: the composer has the keys from
the first frame, and the card scrolls away with the conversation. It shows once: the UI's
preferences file (`ui.json` in the XDG state directory, prefs.py) remembers it was shown; a
session whose history holds a prompt never shows it, nor does `RAW_TUI_WELCOME=off`
(scripts, tests)."""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

WELCOME_ENV = "RAW_TUI_WELCOME"  # `off`: never show it

GATE = (
    "Every tool call the agent makes passes a gate before anything runs:",
    "1. its arguments are checked, what it would change is worked out;",
    "2. your rules allow, ask or deny it, and your hooks may veto it;",
    "3. on ask, you see the change and approve (a) or deny (d) it here.",
)
KEYS = "Enter send  Alt+Enter newline  Esc cancel  Tab panels  ^P commands  ^Q quit"
HINT = "Type your first message below."


def first_run(seen: bool) -> bool:
    """The welcome was not `seen` yet (and is not switched off)."""
    return not seen and os.environ.get(WELCOME_ENV, "").lower() not in ("off", "0", "no")


class WelcomeCard(Vertical):
    """The card (styles/welcome.tcss). Never focused: keys go on to the composer."""

    def __init__(self) -> None:
        super().__init__(id="welcome", classes="chat-item")

    def compose(self) -> ComposeResult:
        yield Static(Text("Welcome to raw-tui", style="bold"), id="welcome-title")
        yield Static(Text(GATE[0]), classes="welcome-gate")
        for line in GATE[1:]:
            yield Static(Text(line), classes="welcome-gate step")
        yield Static(Text(KEYS, style="bold"), id="welcome-keys")
        yield Static(Text(HINT, style="dim italic"), id="welcome-hint")

    def plain_text(self) -> str:
        return "\n".join(("Welcome to raw-tui", *GATE, KEYS))

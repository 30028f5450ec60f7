"""The status line: agent, model, turn state, step n/max, pending approvals and questions,
the last hooks-reload notice; a quit hint that stays visible at any width."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

STATE_STYLE = {"idle": "green", "running": "bold yellow", "cancelling": "bold red",
               "closing": "dim", "starting": "dim"}


@dataclass
class Status:
    agent: str = ""
    model: str = ""
    state: str = "idle"
    step: int = 0
    max_steps: int = 0
    approvals: int = 0
    questions: int = 0
    notice: str = ""
    notice_error: bool = False


KEYS = "^q quit  ^p cmds  F1 keys"
# where the keyboard is, in words (focus is otherwise shown by a background colour only)
PLACE_KEYS = {"chat": "chat ↑↓ ⏎ c", "sidebar": "panels ↑↓ ⏎ c", "form": "form ^s esc"}


class StatusLine(Horizontal):
    def compose(self) -> ComposeResult:
        yield Static(id="status-text")
        yield Static(id="status-place")  # hidden on tiny screens (styles)
        yield Static(KEYS, id="status-keys")

    def show_place(self, place: str | None) -> None:
        """The keys of where the focus is (chat, sidebar, form), before the global ones."""
        hint = PLACE_KEYS.get(place or "")
        widget = self.query_one("#status-place", Static)
        widget.update(Text(hint, style="bold") + Text(" ·") if hint else "")
        widget.set_class(not hint, "-empty")

    def show(self, status: Status) -> None:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append("● " + status.state, style=STATE_STYLE.get(status.state, ""))
        if status.state == "starting":
            line.append(" · opening the session…", style="dim")
            self.query_one("#status-text", Static).update(line)
            return
        if status.state != "idle" or status.step:
            line.append(f" step {status.step}/{status.max_steps}")
        if status.approvals:
            line.append(f" · {status.approvals} approval{'s' * (status.approvals > 1)}",
                        style="bold magenta")
        if status.questions:
            line.append(f" · {status.questions} question{'s' * (status.questions > 1)}",
                        style="bold cyan")
        line.append(f" · {status.agent} · {status.model}", style="dim")
        if status.notice:
            line.append(" · " + status.notice, style="red" if status.notice_error else "dim")
        self.query_one("#status-text", Static).update(line)

"""The status line: turn state, step n/max, pending approvals and questions, context use
(from the provider's `usage` event), a truncated reply; then agent, model, the last
hooks-reload notice. When the line is narrow the key hints go first (where the keyboard is,
then the global keys down to `^q quit`, then none): the state never gives way to a hint."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from ...protocol.errors import TRUNCATED

if TYPE_CHECKING:
    from ...protocol import bus as ev

STATE_STYLE = {"idle": "green", "running": "bold yellow", "cancelling": "bold red",
               "closing": "dim", "starting": "dim"}


class StatusLineState(msgspec.Struct):
    agent: str = ""
    model: str = ""
    state: str = "idle"
    step: int = 0
    max_steps: int = 0
    approvals: int = 0
    questions: int = 0
    notice: str = ""
    notice_error: bool = False
    context: str = ""  # the context the model saw at its last request
    truncated: bool = False  # the last reply was cut by the output limit
    sandbox: str = ""  # bash's sandbox (docs/sandbox.md)


NOTICE_MIN = 12  # a notice shorter than this would say nothing when cut: left out
KEYS = "^q quit  ^p cmds  F1 keys"
SHORT_KEYS = "^q quit"
# where the keyboard is, in words (focus is otherwise shown by a background colour only)
PLACE_KEYS = {"chat": "chat ↑↓ ⏎ c", "sidebar": "panels ↑↓ ⏎ c", "form": "form ^s esc"}


class StatusLine(Horizontal):
    """Keeps its own `StatusLineState`: the session's info and the events that change it
    (session start, turn state, hooks reload) and the pending counts the screen tells it."""

    def __init__(self, *, agent: str = "", model: str = "", max_steps: int = 0,
                 state: str = "idle", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.status = StatusLineState(agent=agent, model=model, max_steps=max_steps, state=state)

    def on_mount(self) -> None:
        self.show(self.status)

    def set_info(self, info: Any) -> None:
        """The session is open: its agent, model and step limit."""
        status = self.status
        status.agent, status.model, status.max_steps = info.agent, info.model, info.max_steps
        status.sandbox = getattr(info, "sandbox", "") or ""
        if status.state == "starting":
            status.state = "idle"
        self.show(status)

    def switch(self, agent: str, model: str) -> None:
        """The agent or the model was switched (the palette)."""
        self.status.agent, self.status.model = agent, model
        self.show(self.status)

    def session_start(self, event: ev.SessionStart) -> None:
        self.status.agent = event.agent
        self.show(self.status)

    def turn_state(self, event: ev.TurnState) -> None:
        status = self.status
        if event.state == "running" and status.state != "running":
            status.truncated = False
        status.state, status.step = event.state, event.step
        status.max_steps = event.max_steps or status.max_steps
        self.show(status)

    def hooks_reload(self, event: ev.HooksReload) -> str:
        """Shows the reload's outcome; returns the notice."""
        self.status.notice = ((event.message or "hooks reloaded") if event.ok
                              else f"hooks reload rejected: {event.message}")
        self.status.notice_error = not event.ok
        self.show(self.status)
        return self.status.notice

    def usage(self, event: ev.TokenUsage) -> None:
        """The context the last model request used: a share of the window when the config
        names one, else a count of tokens."""
        window = event.context_window_tokens  # None when the config names no window
        if isinstance(window, int) and window > 0:
            self.status.context = f"context {min(event.input_tokens * 100 // window, 100)}%"
        else:
            self.status.context = f"context {event.input_tokens:,} tokens"
        self.show(self.status)

    def run_end(self, event: ev.RunEnd) -> None:
        self.status.truncated = event.code == TRUNCATED
        self.show(self.status)

    def on_resize(self) -> None:
        self.show(self.status)

    def set_pending(self, *, approvals: int, questions: int) -> None:
        self.status.approvals, self.status.questions = approvals, questions
        self.show(self.status)

    def compose(self) -> ComposeResult:
        yield Static(id="status-text")
        yield Static(id="status-place")  # hidden on tiny screens (styles)
        yield Static(KEYS, id="status-keys")

    def show_place(self, place: str | None) -> None:
        """The keys of where the focus is (chat, sidebar, form), before the global ones."""
        self._place = PLACE_KEYS.get(place or "", "")
        self.show(self.status)

    _place = ""

    def _fit_hints(self, state_cells: int) -> int:
        """Show the hints that fit beside the state and the model: place and keys, place and
        `^q quit`, keys, `^q quit`, none. Returns the cells left for the state's text (its
        padding taken off)."""
        width = self.size.width or self.app.size.width
        for place, keys in ((self._place, KEYS), (self._place, SHORT_KEYS), ("", KEYS),
                            ("", SHORT_KEYS), ("", "")):
            hints = (len(place) + 3 if place else 0) + (len(keys) + 2 if keys else 0)
            if state_cells + 2 + hints <= width or not keys:
                break
        widget = self.query_one("#status-place", Static)
        widget.update(Text(place, style="bold") + Text(" ·") if place else "")
        widget.set_class(not place, "-empty")
        keys_widget = self.query_one("#status-keys", Static)
        keys_widget.update(keys)
        keys_widget.display = bool(keys)
        return width - hints - 2

    def show(self, status: StatusLineState) -> None:
        if not self.query("#status-text"):
            return  # not composed yet: on_mount shows it
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
        if status.context:
            line.append(f" · {status.context}", style="dim")
        if status.truncated:
            line.append(" · reply truncated", style="bold red")
        who = f" · {status.agent} · {status.model}" if status.model else ""
        room = self._fit_hints(line.cell_len + len(who)) - line.cell_len  # hints give way
        # what follows the state is shown whole or not at all (a part cut at a word left a
        # dangling `·` before the blank up to the hints); a sandbox that is off comes first
        if status.sandbox.startswith("sandbox off") and len(status.sandbox) + 3 <= room:
            line.append(f" · {status.sandbox}", style="bold red")
            room -= len(status.sandbox) + 3
        for who in (f" · {status.agent} · {status.model}", f" · {status.model}"):
            if status.model and len(who) <= room:
                line.append(who, style="dim")
                room -= len(who)
                break
        if status.sandbox and not status.sandbox.startswith("sandbox off") and \
                len(status.sandbox) + 3 <= room:
            line.append(f" · {status.sandbox}", style="dim")
            room -= len(status.sandbox) + 3
        notice = " · " + status.notice if status.notice else ""
        if notice and len(notice) > room >= NOTICE_MIN:  # cut, saying so
            notice = notice[:room - 1] + "…"
        if notice and len(notice) <= room:
            line.append(notice, style="red" if status.notice_error else "dim")
        self.query_one("#status-text", Static).update(line)

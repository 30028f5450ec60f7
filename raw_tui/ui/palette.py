"""The command palette (Ctrl+P): its search mark, and its commands — `/compact`, `/clear`,
retry, edit, search, the other agents and models, the panels' actions, the saved sessions to
resume, Textual's theme."""

from __future__ import annotations

import os
import time
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Iterable

from textual.app import SystemCommand
from textual.command import CommandPalette, SearchIcon

from ..protocol.commands import Clear, Compact, SwitchAgent, SwitchModel
from .textual_private import ExactScreen

if TYPE_CHECKING:
    from .app import RawApp

PALETTE_ICON = ">"  # Textual's 🔎 is an emoji: a box in xterm and in Chromium without one


class Palette(ExactScreen, CommandPalette):
    """Textual's command palette with a search mark every terminal font has."""

    def on_mount(self) -> None:
        for icon in self.query(SearchIcon):
            icon.icon = PALETTE_ICON


def system_commands(app: RawApp, textuals: Iterable[SystemCommand]) -> Iterable[SystemCommand]:
    """raw-tui's commands, then those of Textual's own (`textuals`) it keeps."""
    main = app.main

    def sending(command: Any) -> Callable[[], Any]:
        """The palette entry's callback: `command` sent to the session, off the UI's loop."""
        return partial(app.run_worker, partial(app.send, command))

    yield SystemCommand("/compact", "Summarise the conversation to free context",
                        sending(Compact()))
    yield SystemCommand("/clear", "Start over with an empty conversation", sending(Clear()))
    yield SystemCommand("Retry", "Run the last prompt again in place of its answer (Ctrl+R)",
                        partial(app.run_worker, main.action_retry))
    yield SystemCommand("Edit last prompt",
                        "Edit your last prompt and resend it (e on a prompt in the chat)",
                        main.action_edit_last)
    yield SystemCommand("Search the chat", "Find text in the chat (Ctrl+F, / in the chat)",
                        main.action_search)
    info = app.info
    for agent in info.agents:
        if agent != info.agent:
            yield SystemCommand(f"Agent: {agent}",
                                f"Switch to agent {agent} (its tools, rules, hooks and "
                                f"model) for the next turns; now {info.agent}",
                                sending(SwitchAgent(agent=agent)))
    for model in info.models:
        if model != info.model:
            yield SystemCommand(f"Model: {model}",
                                f"Run the next turns of {info.agent} on model {model}; "
                                f"now {info.model}",
                                sending(SwitchModel(model=model)))
    yield SystemCommand("Quit", "Close the session (SessionEnd runs) and exit",
                        app.action_quit_session)
    yield SystemCommand("Toggle sidebar", "Show or hide the panels",
                        main.action_toggle_sidebar)
    yield SystemCommand("Keys", "Show the keys of the focused widget",
                        app.action_toggle_help)
    yield SystemCommand("Earlier items", "Show chat items pruned from view",
                        main.action_transcript)
    panels = main.conversation.panels
    for panel, title, action in panels.palette_actions():
        yield SystemCommand(
            f"{title}: {action.get('label', action.get('id'))}",
            f"{action.get('kind', '')} action of {panel}",
            partial(app.run_worker, partial(panels.run_action, panel, action)))
    here = app.client.info.cwd
    for row in app.saved:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.updated_at))
        where = f" · in {row.cwd}" if row.cwd else ""
        mark = (f" [{os.path.basename(row.cwd.rstrip('/')) or row.cwd}]"
                if row.cwd and row.cwd != here else "")
        yield SystemCommand(f"Resume: {row.title or '(no prompt)'}{mark}",
                            f"saved session {row.id} · {when} · {row.events} events{where}",
                            partial(app.resume_session, row.id))
    for command in textuals:
        if command.title in ("Theme",):
            yield command

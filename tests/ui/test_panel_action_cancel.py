"""Esc while a panel tool action runs (no turn running) sends Cancel: the UI's cancel reaches
the action (issue 18, item 1; the engine side is tests/engine/test_panel_action_cancel.py)."""

from __future__ import annotations

import asyncio

from raw_tui.protocol.commands import Cancel, PanelAction, Reply
from raw_tui.ui.app import RawApp

from . import events as samples
from .fake_session import FakeSession, connect

TOOL_ACTION = [{"id": "go", "label": "Go", "scope": "panel", "kind": "tool"}]


class SlowActions(FakeSession):
    """A panel action's reply waits until a Cancel arrives (as the engine's does)."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.stop = asyncio.Event()

    async def handle(self, command):
        if isinstance(command, PanelAction):
            self.commands.append(command)
            await self.stop.wait()
            return Reply(ok=False, code="cancelled", message="cancelled")
        if isinstance(command, Cancel):
            self.stop.set()
        return await super().handle(command)


async def test_escape_cancels_a_running_panel_action(tmp_path):
    session = SlowActions(cwd=str(tmp_path))
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["checklist"]], actions=TOOL_ACTION))
        await pilot.pause()
        await pilot.press("tab", "tab", "enter")  # the sidebar, the panel's actions menu
        await pilot.pause()
        await pilot.press("enter")  # Go
        for _ in range(50):
            if session.sent(PanelAction):
                break
            await pilot.pause(0.02)
        assert session.sent(PanelAction) == [PanelAction(panel="builtin/todo#todo", action="go")]
        assert session.sent(Cancel) == []
        await pilot.press("escape")
        for _ in range(50):
            if session.sent(Cancel):
                break
            await pilot.pause(0.02)
        assert session.sent(Cancel) == [Cancel()]
        await pilot.pause()
        assert app.screen.conversation.panels.actions_running == 0

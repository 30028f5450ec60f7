"""Raw's action keys in the UI (issue 18): an action is offered only on its `blocks` and for
items whose status its `when` names, the `primary` one first, and `confirm` is asked before
the action runs (a question, never an approval: the gate still decides)."""

from __future__ import annotations

from raw_tui.protocol.commands import PanelAction
from raw_tui.ui.app import RawApp
from raw_tui.ui.screens.actions_menu import ActionsMenu
from raw_tui.ui.widgets.sidebar import Sidebar

from . import events as samples
from .fake_session import connect
from .screenshot_kit import screen_text

ACTIONS = [
    {"id": "redo", "label": "Redo failed", "scope": "item", "kind": "tool",
     "when": {"status": ["failed"]}},
    {"id": "other", "label": "Elsewhere", "scope": "item", "kind": "tool", "blocks": ["nope"]},
    {"id": "wipe", "label": "Wipe", "scope": "item", "kind": "tool", "primary": True,
     "confirm": "Wipe this item?"},
]


async def test_when_blocks_primary_and_confirm(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["checklist"]], actions=ACTIONS))
        await pilot.pause()
        await pilot.press("tab", "tab", "right", "down")  # item a (done)
        assert app.query_one(Sidebar).cursor.item == "a"
        await pilot.press("enter")
        await pilot.pause()
        text = screen_text(app)
        assert "Wipe" in text and "Redo failed" not in text and "Elsewhere" not in text
        await pilot.press("escape")
        await pilot.press(*["down"] * 5)  # b, b1, b2, b21, c (failed)
        assert app.query_one(Sidebar).cursor.item == "c"
        await pilot.press("enter")
        await pilot.pause()
        text = screen_text(app)
        assert 0 <= text.index("Wipe") < text.index("Redo failed")  # the primary first
        await pilot.press("enter")  # Wipe: asked first
        await pilot.pause()
        assert isinstance(app.screen, ActionsMenu) and "Wipe this item?" in screen_text(app)
        assert session.sent(PanelAction) == []
        await pilot.press("escape")  # no: nothing runs
        await pilot.pause()
        assert session.sent(PanelAction) == []
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")  # Wipe
        await pilot.pause()
        await pilot.press("enter")  # yes
        await pilot.pause()
        await pilot.pause()
        assert session.sent(PanelAction) == [PanelAction(panel="builtin/todo#todo", action="wipe",
                                                         block="plan", item="c")]

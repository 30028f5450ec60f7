"""A tool folder written for Raw (tests/fixtures/raw_tools/board: Raw's block vocabulary, a
block of every kind), copied unchanged into `tools/`, renders in the sidebar and updates
live (issue 18): a real session runs it through the gate; the app shows every field Raw's
shapes carry, then the update the tool makes while it still runs."""

from __future__ import annotations

import asyncio
import shutil

import msgspec
from pathlib import Path

from raw_tui.protocol import bus as ev
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.panel_view import PanelView
from tests.engine.session_kit import agent_config, make_session

from .fake_session import connect
from .screenshot_kit import flat, screen_text

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "raw_tools" / "board"
LINES = [{"tool_calls": [{"id": "c1", "name": "board", "arguments": {"step": 1}}]},
         {"text": "Board drawn."},
         {"tool_calls": [{"id": "c2", "name": "board", "arguments": {"step": 2}}]},
         {"text": "Moved on."}]

FIRST = ["Release 1.4", "cut on Friday", "Tasks", "✔ Freeze the API [high]",
         "◐ Write notes [low]", "(docs/NOTES.md:12)", "⊘ Breaking changes",
         "○ Upgrade guide — needs examples", "1. ✔ Build — cached (42s)",
         "2. ○ Ship — after sign-off", "Uploading wheels", "3/12 (25%)", "Scanning",
         "in progress", "branch release/1.4 (.git/HEAD)", "owner ana", "Suite Time",
         "✔ unit 812 ms", "✘ e2e 12 s", "(tests/e2e/test_login.py:40)", "Ship when green.",
         "01:01:00 ✘ e2e failed — login timeout", "01:00:00 • branch cut",
         "M src/api.py:88 new route", "README.md", "Dev pushes; CI answers green",
         "[burndown]", "Burndown: 5 then 3 then 1 open"]
SECOND = ["✔ Upgrade guide", "12/12 (100%)", "• tagged v1.4.0", "✔ e2e fixed",
          "A CHANGELOG.md 1.4 notes"]


async def wait_for(pilot, app, pieces, timeout=20.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        text = flat(screen_text(app))
        missing = [p for p in pieces if p not in text]
        if not missing:
            return text
        assert loop.time() < deadline, f"missing {missing} in:\n{screen_text(app)}"
        await pilot.pause(0.05)


async def test_a_raw_tool_folder_renders_every_block_and_updates_live(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "cfg" / "tools" / "board")  # unchanged
    config = agent_config(tmp_path, use=["agent/board"])
    h = make_session(tmp_path, LINES, config=config, interactive=True)
    app = RawApp(connect(h.session))
    async with app.run_test(size=(140, 120)) as pilot:
        await pilot.press(*"draw", "enter")
        text = await wait_for(pilot, app, FIRST)
        assert "mermaid source" not in text  # the tool's fallback stands for the diagram
        [receipt] = h.of(ev.PanelReceipt)  # accepted as Raw wrote it
        assert receipt.error is msgspec.UNSET and receipt.revision == 1
        view = app.query_one(PanelView)
        await pilot.press(*"move", "enter")
        text = await wait_for(pilot, app, SECOND)  # while the call still runs
        assert not any(r.call_id == "c2" for r in h.of(ev.ToolResultEvent))
        assert "branch cut" not in text  # the timeline keeps its last 3 (its `max`)
        assert app.query_one(PanelView) is view  # updated in place
        (tmp_path / "work" / "release").write_text("go")
        await h.wait_for(ev.ToolResultEvent, count=2)
        await h.session.wait_idle()
    await h.session.close()


def board_document() -> dict:
    """The fixture tool's own document, read from its folder."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("raw_board_fixture", FIXTURE / "tool.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.BOARD


def test_the_raw_board_in_the_sidebar(snap_compare):
    """What the sidebar draws of a document in Raw's shapes (the fixture's), at 120x40."""
    from .snapshot_kit import make_app

    session, app = make_app()

    async def run_before(pilot):
        session.publish(ev.PanelState(panel="agent/board#board", owner="agent/board",
                                      revision=1, placement="sidebar",
                                      document=board_document(), title="Release board",
                                      icon="list-checks"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)

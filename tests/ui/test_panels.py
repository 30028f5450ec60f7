"""Sidebar and inline panels: every block kind drawn, updates in place, bad input."""

from __future__ import annotations

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.panel_view import BlockView, PanelView
from raw_tui.ui.widgets.sidebar import Sidebar

from . import events as samples
from .fake_session import connect
from .screenshot_kit import flat, screen_text

EXPECTED = {
    "checklist": ["✔ Read the code", "◐ Write the tests", "✔ pilot tests", "○ snapshots",
                  "! at 80x24", "✘ Ship it — waiting on CI", "⊘ Old idea"],
    "steps": ["1. ✔ Configure", "2. ◐ Build (2 of 5)", "3. ○ Deploy"],
    "progress": ["Files", "3/7 files (42%)"],
    "key_value": ["branch main", "tests 42", "clean yes", "owner —"],
    "table": ["Name Lines", "app.py 310", "bus.py 170"],
    "markdown": ["Notes", "Some bold text and code.", "• one"],
    "timeline": ["10:02 ✘ lint failed", "10:01 ✔ tests passed", "10:00 • started"],
    "files": ["M src/app.py +12 -3", "A src/new.py", "D old.txt"],
    "mermaid": ["┌───────┐", "│ Plan │", "▼", "│ Ship │"],
    "unknown": ["[gauge]", "value: 0.5", "label: load"],
}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
async def test_every_block_kind_is_drawn_in_the_sidebar(session, kind):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([samples.BLOCKS[kind]], title=f"Kind {kind}"))
        await pilot.pause()
        text = flat(screen_text(app))
        assert f"Kind {kind} r1" in text
        for piece in EXPECTED[kind]:
            assert piece in text, piece


async def test_timeline_is_newest_first(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["timeline"]]))
        await pilot.pause()
        text = screen_text(app)
        assert text.index("lint failed") < text.index("tests passed") < text.index("started")


async def test_updates_change_the_panel_in_place(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        steps = samples.BLOCKS["steps"]
        session.publish(samples.panel([steps], progress={"done": 1, "total": 3}))
        await pilot.pause()
        view = app.query_one(PanelView)
        block = app.query_one(BlockView)
        done = {**steps, "items": [{**i, "status": "done"} for i in steps["items"]]}
        session.publish(samples.panel([done], revision=2, progress={"done": 3, "total": 3},
                                summary="all done"))
        await pilot.pause()
        assert app.query_one(PanelView) is view and app.query_one(BlockView) is block
        text = flat(screen_text(app))
        assert "Todo r2" in text and "all done" in text and "3/3" in text
        assert "3. ✔ Deploy" in text
        # a new block appears after the first
        session.publish(samples.panel([done, samples.BLOCKS["progress"]], revision=3))
        await pilot.pause()
        assert len(app.query(BlockView)) == 2 and app.query_one(PanelView) is view
        # closing removes it from the sidebar
        session.publish(ev.PanelState(panel="builtin/todo#todo", owner="builtin/todo",
                                      revision=4, placement="sidebar", document=None))
        await pilot.pause()
        assert not app.query(PanelView)
        assert not app.query_one(Sidebar).display  # nothing left to show: the chat is whole
        await pilot.press("f2")  # shown on request, it says why it is empty
        await pilot.pause()
        assert "No panels yet." in screen_text(app)


async def test_chat_placement_panels_sit_inline_and_update_in_place(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(ev.UserMessage(text="before"),
                        samples.panel([samples.BLOCKS["progress"]], pid="build", placement="chat",
                                title="Build"),
                        ev.UserMessage(text="after"))
        await pilot.pause()
        chat = app.query_one("#chat")
        view = chat.query_one(PanelView)
        session.publish(samples.panel([{**samples.BLOCKS["progress"], "done": 7}], pid="build",
                                placement="chat", title="Build", revision=2))
        await pilot.pause()
        assert chat.query_one(PanelView) is view
        text = flat(screen_text(app))
        assert text.index("before") < text.index("Build r2") < text.index("after")
        assert "7/7 files (100%)" in text
        assert not app.query_one(Sidebar).panels


async def test_a_malformed_block_shows_an_error_line_not_a_crash(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        bad = {"id": "bad", "kind": "checklist", "items": 7}
        worse = {"id": "q", "kind": "form", "fields": [{"id": "x", "kind": "single_select",
                                                        "label": "X", "options": 3}]}
        session.publish(samples.panel([bad, worse, samples.BLOCKS["steps"]]))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "⚠ cannot draw this" in text
        assert "⚠ cannot draw this form" in text
        assert "2. ◐ Build" in text  # the rest of the panel is drawn
        session.publish(ev.UserMessage(text="still alive"))
        await pilot.pause()
        assert "still alive" in screen_text(app)


async def test_sidebar_hidden_below_100_columns_and_toggled(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["steps"]]))
        await pilot.pause()
        sidebar = app.query_one(Sidebar)
        assert not sidebar.display
        await pilot.press("f2")
        await pilot.pause()
        assert sidebar.display and app.focused is sidebar
        assert "Configure" in screen_text(app)
        await pilot.press("f2")
        assert not sidebar.display
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 24)) as pilot:
        sidebar = app.query_one(Sidebar)
        assert not sidebar.display  # wide, but with no panel to show
        session.publish(samples.panel([samples.BLOCKS["steps"]]))
        await pilot.pause()
        assert sidebar.display and "Configure" in screen_text(app)


async def test_an_exception_while_drawing_shows_an_error_line_not_a_crash(session, monkeypatch):
    """Rich draws lazily (at layout and paint time): a renderable that raises then is caught
    too, and the rest of the app keeps working."""
    from raw_tui.ui.blocks.mermaid import FitDiagram

    def boom(self, console, options):
        raise RuntimeError("diagram exploded")
        yield  # pragma: no cover

    monkeypatch.setattr(FitDiagram, "__rich_console__", boom)
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["mermaid"], samples.BLOCKS["steps"]]))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "⚠ cannot draw this (RuntimeError:" in text and "diagram exploded" in text
        assert "2. ◐ Build" in text
        session.publish(ev.UserMessage(text="still alive"))
        await pilot.pause()
        assert "still alive" in screen_text(app) and app._exception is None


async def test_a_graph_lr_too_wide_for_the_sidebar_says_it_is_drawn_top_down(session):
    """Issue 11: after the demo's Redraw (`graph LR`) the diagram stayed top-down in the
    44-column sidebar without a word; where the width allows (the panels at full width on
    80 columns) it is drawn left to right."""
    lr = {"id": "diagram", "kind": "mermaid",
          "source": "graph LR\n  Look --> Plan\n  Plan --> Write\n  Write --> Ask"}
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([lr], pid="plan", title="Plan"))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "left to right needs 50 columns" in text and "drawn top-down" in text
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(samples.panel([lr], pid="plan", title="Plan", revision=2))
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        text = screen_text(app)
        assert "│ Look │─────▶│ Plan │─────▶│ Write │─────▶│ Ask │" in text, text
        assert "drawn top-down" not in text

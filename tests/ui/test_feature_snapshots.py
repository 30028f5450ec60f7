"""SVG snapshots of issue 11's features at 80x24 and 120x40: the first run's welcome, a
chat search, a prompt being edited, a retried turn, a switched model."""

from __future__ import annotations

from raw_tui.protocol import bus as ev

from .events import retried, two_turns
from .snapshot_kit import at_each_size, make_app


@at_each_size
def test_welcome(snap_compare, size, monkeypatch, tmp_path):
    monkeypatch.delenv("RAW_TUI_WELCOME", raising=False)
    _, app = make_app(prefs_path=tmp_path / "ui.json")

    async def run_before(pilot):
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@at_each_size
def test_search(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("ctrl+f", *"answer", "enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@at_each_size
def test_editing_a_prompt(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("tab", "up", "e")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@at_each_size
def test_retried_turn(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns(), *retried())
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@at_each_size
def test_switched_model(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns(), ev.AgentModel(agent="reviewer", model="local-llama"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)

"""SVG snapshots of issue 11's features at 80x24 and 120x40: the first run's welcome, a
chat search, a prompt being edited, a retried turn, a switched model."""

from __future__ import annotations

import pytest

from raw_tui import bus as ev
from raw_tui.ui.app import RawApp

from .fake_session import FakeSession, connect
from .test_features import retried, two_turns
from .test_snapshots import CWD, SIZES, make_app

IDS = lambda s: f"{s[0]}x{s[1]}"  # noqa: E731


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_welcome(snap_compare, size, monkeypatch, tmp_path):
    monkeypatch.delenv("RAW_TUI_WELCOME", raising=False)
    session = FakeSession(cwd=CWD)
    app = RawApp(connect(session), prefs_path=tmp_path / "ui.json")

    async def run_before(pilot):
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_search(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("ctrl+f", *"answer", "enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_editing_a_prompt(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("tab", "up", "e")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_retried_turn(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns(), *retried())
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_switched_model(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(*two_turns(), ev.AgentModel(agent="reviewer", model="local-llama"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)

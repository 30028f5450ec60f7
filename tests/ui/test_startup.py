"""The app draws first and opens its session right after the first frame (the transport's
`open()`): the replayed history, the keymap of the config and SessionStart come then; a
prompt typed meanwhile waits for the session; an opening error ends the app with that error."""

from __future__ import annotations

import asyncio

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol.client import InProcessTransport
from raw_tui.protocol.commands import Prompt, UiSettings
from raw_tui.protocol.errors import ConfigError
from raw_tui.ui.app import RawApp
from raw_tui.ui.screens.main import MainScreen
from raw_tui.ui.widgets.composer import Composer
from raw_tui.ui.widgets.stand_in import ComposerStandIn

from .fake_session import FakeSession, connect, transport
from .screenshot_kit import screen_text


class OpeningSession(FakeSession):
    """A FakeSession whose open() publishes what a real one does."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.ui = UiSettings(keymap={"raw.toggle_sidebar": "f5"})
        self.opened = 0

    async def open(self, *, watch: bool = False) -> None:
        self.opened += 1
        self.bus.publish(ev.SessionStart(session_id="s-test", agent="demo"))
        self.bus.publish(ev.TurnState(state="idle"))


async def test_the_screen_comes_first_then_the_session(tmp_path):
    real = OpeningSession(cwd=str(tmp_path))
    calls = []

    def opener():
        calls.append(1)
        return real, [ev.UserMessage(text="from before")]

    app = RawApp(transport(InProcessTransport(opener, cwd=str(tmp_path))))
    async with app.run_test(size=(120, 30)) as pilot:
        assert "starting" in screen_text(app).split("\n")[-1]
        await pilot.press(*"early", "enter")  # typed before the session is open
        for _ in range(20):
            await pilot.pause()
            if real.opened:
                break
        await pilot.pause()
        assert calls and real.opened == 1
        last = screen_text(app).split("\n")[-1]
        assert "idle" in last and "demo · scripted" in last
        assert "from before" in screen_text(app)
        assert real.sent(Prompt) == [Prompt(text="early")]
        assert not app.main.sidebar.display  # no panel yet
        await pilot.press("f5")  # the config's keymap applies
        assert app.main.sidebar.display and app.focused is app.main.sidebar


async def test_an_opening_error_ends_the_app_with_it(tmp_path):
    def opener():
        raise ConfigError("models: Expected `object`", file="raw.json")

    app = RawApp(transport(InProcessTransport(opener, cwd=str(tmp_path))))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
    assert isinstance(app.startup_error, ConfigError)
    assert app.return_code == 1


# the composer's stand-in (widgets/stand_in.py): in a terminal or a browser the first frame
# shows it, and the composer replaces it right after; tests run headless, so these ask for it


def held_composer(monkeypatch):
    """Keep the stand-in; the composer comes when the test awaits the returned function."""
    mount = MainScreen.mount_composer

    async def later(screen):
        pass

    monkeypatch.setattr(MainScreen, "mount_composer", later)
    return mount


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 20), (30, 10)])
async def test_the_stand_in_draws_what_the_empty_composer_draws(session, monkeypatch, size):
    frames = []
    for stand_in in (False, True):
        app = RawApp(connect(session))
        app.composer_stand_in = stand_in
        if stand_in:
            held_composer(monkeypatch)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert bool(app.query(ComposerStandIn)) == stand_in
            frames.append(app.export_screenshot(simplify=True))
    assert frames[0] == frames[1]


async def test_keys_typed_before_the_composer_is_there_reach_it_in_order(session, monkeypatch):
    mount_composer = held_composer(monkeypatch)
    app = RawApp(connect(session))
    app.composer_stand_in = True
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"first", "enter", *"abc", "left", "X")
        await pilot.pause()
        assert not app.query(Composer) and session.sent(Prompt) == []
        await mount_composer(app.main)
        await pilot.pause()
        composer = app.query_one(Composer)
        assert not app.query(ComposerStandIn) and app.focused is composer
        assert session.sent(Prompt) == [Prompt(text="first")]
        assert composer.text == "abXc" and composer.cursor_location == (0, 3)
        await pilot.press("Y", "enter")  # keys after it go on from there
        await pilot.pause()
        assert session.sent(Prompt)[-1] == Prompt(text="abXYc")


async def test_the_composer_replaces_its_stand_in_right_after_the_first_frame(session):
    app = RawApp(connect(session))
    app.composer_stand_in = True
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(10):
            await pilot.pause()
            if app.query(Composer):
                break
        assert not app.query(ComposerStandIn)
        assert isinstance(app.focused, Composer)
        await pilot.press(*"hi", "enter")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="hi")]

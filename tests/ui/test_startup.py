"""The app draws first and opens its session right after the first frame (the transport's
`open()`): the replayed history, the keymap of the config and SessionStart come then; a
prompt typed meanwhile waits for the session; an opening error ends the app with that error."""

from __future__ import annotations

from raw_tui import bus as ev
from raw_tui.client import InProcessTransport
from raw_tui.commands import Prompt, UiSettings
from raw_tui.errors import ConfigError
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.composer import Composer

from .fake_session import FakeSession, transport
from .helpers import screen_text


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
        await pilot.press("f5")  # the config's keymap applies
        assert not app.main.sidebar.display
        assert isinstance(app.focused, Composer)


async def test_an_opening_error_ends_the_app_with_it(tmp_path):
    def opener():
        raise ConfigError("models: Expected `object`", file="raw.json")

    app = RawApp(transport(InProcessTransport(opener, cwd=str(tmp_path))))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
    assert isinstance(app.startup_error, ConfigError)
    assert app.return_code == 1

"""The bridge and the router: every engine event reaches the screen as one message, in
order, and the router hands it to the features that draw it; an event type no feature draws
is logged, never silently lost (asserted on the messages the app received)."""

from __future__ import annotations

import os
import typing
from types import SimpleNamespace

import msgspec

from raw_tui.protocol import bus as ev
from raw_tui.protocol.client import TRANSPORT_ENV
from raw_tui.ui import messages
from raw_tui.ui.app import RawApp
from raw_tui.ui.conversation import router

from .fake_session import connect
from .screenshot_kit import flat, screen_text


async def test_every_event_type_has_its_place_in_the_router(session):
    event_types = set(typing.get_args(ev.AnyEvent))
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30)):
        table = app.main.conversation.router.table
        assert set(table) - {messages.ReplayStarted, messages.ReplayFinished} == event_types


class Gauge(ev.Event, tag="gauge"):
    """An event type this UI has never heard of."""

    value: float


async def test_events_arrive_in_order(session):
    received: list = []
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30), message_hook=received.append) as pilot:
        session.publish(ev.UserMessage(text="hi"), ev.TurnState(state="running", step=1),
                        ev.TokenUsage(input_tokens=5000, output_tokens=10,
                                      context_window_tokens=20000))
        await pilot.pause()
        kinds = [type(m.event) for m in received if isinstance(m, messages.EngineEvent)
                 and m.live]
        assert kinds == [ev.UserMessage, ev.TurnState, ev.TokenUsage]
        assert "context 25%" in screen_text(app).split("\n")[-1]


async def test_an_event_no_widget_draws_is_logged_not_lost(session, monkeypatch):
    """In process it reaches the screen, where the router has no handler for it (it writes
    it to the debug log); across the encoding transport it cannot even be decoded, and the
    bus says so in a notice."""
    logged: list[str] = []
    monkeypatch.setattr(router, "log", SimpleNamespace(warning=logged.append))
    received: list = []
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30), message_hook=received.append) as pilot:
        session.publish(Gauge(value=0.5))
        await pilot.pause()
        arrived = [m.event for m in received if isinstance(m, messages.EngineEvent)]
        undrawn = [e for e in arrived if type(e) not in app.main.conversation.router.table]
        notices = [e for e in arrived if isinstance(e, ev.Notice)]
        if os.environ.get(TRANSPORT_ENV) == "encoding":
            assert undrawn == [] and "failed on gauge" in notices[0].message
            assert "the encoding transport failed on" in flat(screen_text(app))
        else:
            assert undrawn == [Gauge(value=0.5)] and notices == []
            assert logged == [f"no widget draws Gauge: {Gauge(value=0.5)!r}"]
            assert "could not draw" not in flat(screen_text(app))


async def test_any_handler_that_fails_is_a_notice_and_the_next_events_are_drawn(session,
                                                                                monkeypatch):
    """The router guards every handler, the status line's too: a turn state that cannot be
    drawn says so in the chat, and the session goes on (the app does not fall over)."""
    from raw_tui.ui.widgets.status_line import StatusLine

    def broken(self, event):
        raise ValueError("no room for it")

    monkeypatch.setattr(StatusLine, "turn_state", broken)
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30)) as pilot:
        session.publish(ev.TurnState(state="running", step=1), ev.UserMessage(text="still here"))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "could not draw TurnState: no room for it" in text and "still here" in text
        assert app.is_running


def test_a_field_the_event_left_out_reaches_a_handler_as_none():
    end = ev.RunEnd(status="error", message="boom")
    shown = router.settled(end)
    assert type(shown) is ev.RunEnd and shown.code is None and shown.message == "boom"
    assert end.code is msgspec.UNSET  # the event itself (shared in process) is not changed

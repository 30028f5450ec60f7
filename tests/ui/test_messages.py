"""The bridge: one typed message per engine event, posted in order; an event type without a
message is logged, never silently lost (asserted on the messages the app received)."""

from __future__ import annotations

import os
import typing

from raw_tui import bus as ev
from raw_tui.client import TRANSPORT_ENV
from raw_tui.ui import messages
from raw_tui.ui.app import RawApp

from .fake_session import connect
from .helpers import flat, screen_text


def test_every_event_type_has_its_own_message():
    event_types = set(typing.get_args(ev.AnyEvent))
    assert set(messages.MESSAGES) == event_types
    assert len(set(messages.MESSAGES.values())) == len(event_types)
    names = {m.__name__ for m in messages.MESSAGES.values()}
    assert not names & {t.__name__ for t in event_types}  # no type shares a name


class Gauge(ev.Event, tag="gauge"):
    """An event type this UI has never heard of."""

    value: float


async def test_events_arrive_as_typed_messages_in_order(session):
    received: list = []
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30), message_hook=received.append) as pilot:
        session.publish(ev.UserMessage(text="hi"), ev.TurnState(state="running", step=1),
                        ev.TokenUsage(input_tokens=5000, output_tokens=10,
                                      context_window_tokens=20000))
        await pilot.pause()
        kinds = [type(m) for m in received if isinstance(m, messages.EngineEvent)]
        assert kinds == [messages.UserMessageSent, messages.TurnStateChanged,
                         messages.UsageReported]
        assert "context 25%" in screen_text(app).split("\n")[-1]


async def test_an_event_no_widget_draws_is_logged_not_lost(session):
    """In process it reaches the screen as UndrawnEvent (written to the debug log); across
    the encoding transport it cannot even be decoded, and the bus says so in a notice."""
    received: list = []
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30), message_hook=received.append) as pilot:
        session.publish(Gauge(value=0.5))
        await pilot.pause()
        undrawn = [m.event for m in received if isinstance(m, messages.UndrawnEvent)]
        notices = [m.event for m in received if isinstance(m, messages.NoticeArrived)]
        if os.environ.get(TRANSPORT_ENV) == "encoding":
            assert undrawn == [] and "failed on gauge" in notices[0].message
            assert "the encoding transport failed on" in flat(screen_text(app))
        else:
            assert undrawn == [Gauge(value=0.5)] and notices == []

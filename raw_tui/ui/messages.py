"""The one Textual message that carries engine events to the main screen, in order: the
saved history first (`live=False`, between `ReplayStarted` and `ReplayFinished`), then what
was published meanwhile. The screen hands each event to the router
(`conversation/router.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from textual.message import Message

from ..protocol import bus as ev


@dataclass
class EngineEvent(Message, bubble=False):
    """One engine event; `live` is False while a saved history is being drawn. Handled by
    the main screen, where it is posted; it does not bubble to the app."""

    event: Carried
    live: bool = True


class ReplayStarted:
    """A saved history follows (drawn in one batch)."""


class ReplayFinished:
    """The saved history has been posted; live events follow."""


# What an `EngineEvent` carries: an event of the session (what a transport delivers,
# protocol/client.py `Deliver`) or one of the two marks around the saved history.
Carried = Union[ev.Event, ReplayStarted, ReplayFinished]

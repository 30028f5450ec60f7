"""The one Textual message that carries engine events to the main screen, in order: the
saved history first (`live=False`, between `ReplayStarted` and `ReplayFinished`), then what
was published meanwhile. The screen hands each event to the router
(`conversation/router.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class EngineEvent(Message, bubble=False):
    """One engine event; `live` is False while a saved history is being drawn. Handled by
    the main screen, where it is posted; it does not bubble to the app."""

    event: Any
    live: bool = True


class ReplayStarted:
    """A saved history follows (drawn in one batch)."""


class ReplayFinished:
    """The saved history has been posted; live events follow."""

"""Textual messages the app posts to itself."""

from __future__ import annotations

from typing import Any

from textual.message import Message


class BusEvent(Message):
    """One engine event from the bus, delivered on the app's message queue (in order)."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event

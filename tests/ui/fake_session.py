"""A SessionApi for UI tests: records the commands it receives, replies as told, and lets a
test publish engine events on a real Bus. `connect(session)` puts it behind the transport the
test run uses (`pytest --transport encoding`, or RAW_TUI_TRANSPORT)."""

from __future__ import annotations

import os
from typing import Any, Callable

from raw_tui.protocol.bus import Bus
from raw_tui.protocol.client import TRANSPORT_ENV, InProcessTransport, SessionClient, with_transport
from raw_tui.protocol.commands import Command, Reply, SavedSession, SessionInfo, UiSettings


class FakeSession:
    def __init__(self, *, cwd: str = "/tmp", max_steps: int = 25) -> None:
        self.bus = Bus()
        self.info = SessionInfo(session_id="s-test", agent="demo", model="scripted",
                                max_steps=max_steps, cwd=cwd)
        self.commands: list[Command] = []
        self.replies: dict[type, Callable[[Command], Reply] | Reply] = {}
        self.ui = UiSettings()
        self.saved: list[SavedSession] = []
        self.closed = 0

    async def open(self, *, watch: bool = False) -> None:
        pass

    async def handle(self, command: Command) -> Reply:
        self.commands.append(command)
        reply = self.replies.get(type(command))
        if callable(reply):
            return reply(command)
        return reply if reply is not None else Reply()

    def saved_sessions(self) -> list[SavedSession]:
        return list(self.saved)

    def ui_settings(self) -> UiSettings:
        return self.ui

    async def close(self) -> None:
        self.closed += 1

    def publish(self, *events: Any) -> None:
        for event in events:
            self.bus.publish(event)

    def sent(self, kind: type) -> list[Any]:
        return [c for c in self.commands if isinstance(c, kind)]


def transport(inner: InProcessTransport) -> SessionClient:
    """`inner` behind the transport this test run uses."""
    return with_transport(os.environ.get(TRANSPORT_ENV), inner)


def connect(session: Any, *, replay: list[Any] | None = None, ui: Any = None) -> SessionClient:
    """A client of `session` (already open) through this run's transport."""
    if ui is not None:
        session.ui = UiSettings(**ui)
    return transport(InProcessTransport.of(session, replay))

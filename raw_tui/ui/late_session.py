"""The session of a starting app: the screen is drawn first, the engine (config, tools,
hooks, saved history) is loaded right after its first frame. Until then the status line says
`starting`, and a command waits for the session instead of failing."""

from __future__ import annotations

import asyncio
from typing import Any

from ..commands import Command, Reply, SessionInfo


class LateSession:
    """A SessionApi standing for the session being opened (same bus, handle() waits)."""

    def __init__(self, bus: Any, cwd: str) -> None:
        self.bus = bus
        self.info = SessionInfo(session_id="", agent="raw-tui", model="", max_steps=0,
                                cwd=cwd)
        self.real: Any = None
        self.store: Any = None
        self._settled = asyncio.Event()

    def attach(self, session: Any) -> None:
        self.real = session
        self.info = session.info
        self.store = getattr(session, "store", None)
        self._settled.set()

    def fail(self) -> None:
        self._settled.set()

    async def handle(self, command: Command) -> Reply:
        await self._settled.wait()
        if self.real is None:
            return Reply(ok=False, message="the session could not start")
        return await self.real.handle(command)

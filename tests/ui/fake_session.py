"""A SessionApi for UI tests: records the commands it receives, replies as told, and lets a
test publish engine events on a real Bus."""

from __future__ import annotations

from typing import Any, Callable

from raw_tui.bus import Bus
from raw_tui.commands import Command, Reply, SessionInfo


class FakeSession:
    def __init__(self, *, cwd: str = "/tmp", max_steps: int = 25) -> None:
        self.bus = Bus()
        self.info = SessionInfo(session_id="s-test", agent="demo", model="scripted",
                                max_steps=max_steps, cwd=cwd)
        self.commands: list[Command] = []
        self.replies: dict[type, Callable[[Command], Reply] | Reply] = {}

    async def handle(self, command: Command) -> Reply:
        self.commands.append(command)
        reply = self.replies.get(type(command))
        if callable(reply):
            return reply(command)
        return reply if reply is not None else Reply()

    def publish(self, *events: Any) -> None:
        for event in events:
            self.bus.publish(event)

    def sent(self, kind: type) -> list[Any]:
        return [c for c in self.commands if isinstance(c, kind)]

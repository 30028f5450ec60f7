"""A hosted session, or the same session inside the UI when its host cannot start.

When the socket directory is refused (not ours, not 0700, a symlink, too long a path) or
the host process does not come up, the UI says why in one line (a notice in the chat) and
opens the session in its own process, as `--no-detach` would; unless the config says
`ui.detach: true` in so many words, when that line is the UI's error and it exits
(docs/decisions.md). A config error, an unknown session or a live one are the
session's own errors: they are not worked around.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from ..protocol import bus as ev
from ..protocol.client import Deliver, Opened, SessionClient
from ..protocol.commands import Command, Reply, SavedSession
from ..protocol.errors import HOST_FAILED, SOCKET_DIR_ERROR, RawError

FALLBACK_CODES = (HOST_FAILED, SOCKET_DIR_ERROR)


def host_cannot_start(err: BaseException) -> bool:
    """The host could not start for a reason of its own (not the session's)."""
    return isinstance(err, RawError) and err.code in FALLBACK_CODES


def fallback_line(err: RawError,
                  instead: str = "this session runs inside the UI and ends with it") -> str:
    return f"the session host could not start ({err.message}); {instead}"


class HostOrInProcess:
    """`hosted` (a SocketTransport); when it cannot start, `in_process()` instead."""

    def __init__(self, hosted: Any, in_process: Callable[[], SessionClient], *,
                 required: Callable[[], bool] = lambda: False) -> None:
        """`required()`: asked once the host failed, whether that is the UI's error."""
        self._hosted = hosted
        self._in_process = in_process
        self._required = required
        self.active: Any = hosted
        self._deliver: Deliver | None = None
        self._decided = asyncio.Event()
        self.fell_back: RawError | None = None

    @property
    def info(self):
        return self.active.info

    @property
    def ready(self) -> bool:
        return self.active.ready

    @property
    def detachable(self) -> bool:
        return getattr(self.active, "detachable", False)

    @property
    def quit_sent(self) -> bool:
        return getattr(self.active, "quit_sent", True)

    def listen(self, deliver: Deliver) -> None:
        self._deliver = deliver
        self.active.listen(deliver)

    async def open(self) -> Opened:
        try:
            return await self._hosted.open()
        except Exception as err:
            if not host_cannot_start(err) or self._required():
                raise
            await self._hosted.close()
            self.fell_back = err
            self.active = self._in_process()
            if self._deliver is not None:
                self.active.listen(self._deliver)
                self._deliver(ev.Notice(level="warning", message=fallback_line(err)))
            return await self.active.open()
        finally:
            self._decided.set()

    async def handle(self, command: Command) -> Reply:
        await self._decided.wait()
        return await self.active.handle(command)

    async def saved_sessions(self) -> list[SavedSession]:
        return await self.active.saved_sessions()

    async def close(self) -> None:
        self._decided.set()
        await self.active.close()

"""`SocketTransport`: the client side of the seam (`raw_tui.protocol.client.SessionClient`) over a
session host's socket, so the UI runs against a host by swapping its transport.

`open()` finds the host (`attach [ID]`, or a `--continue`/`--resume` of a session that is
live) or starts one for the session the command line names, then attaches: `Opened.replay` is
the snapshot's chat, and the snapshot's state (open panels, pending approvals and questions,
the turn, the reply being streamed) is delivered as live events before the live stream, so a
reattached UI shows the approval modal that waits. `close()` detaches; only a `Quit` command
ends a hosted session.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..protocol import bus as ev
from ..protocol.client import Deliver, Opened, placeholder_info
from ..protocol.commands import Command, Quit, Reply, SavedSession
from ..protocol.errors import SESSION_CLOSED
from .client import HostClient

if TYPE_CHECKING:
    from ..session.request import SessionRequest


class SocketTransport:
    detachable = True  # the UI's detach key leaves the session running

    def __init__(self, locate: Callable[[], Path], *, cwd: str) -> None:
        """`locate()` (blocking; run in a thread) returns the socket to attach to, starting a
        host when needed; it raises the session's error (ConfigError, a RawError)."""
        self._locate = locate
        self.info = placeholder_info(cwd)
        self.ready = False
        self.client: HostClient | None = None
        self._deliver: Deliver | None = None
        self._settled = asyncio.Event()
        self._watch: asyncio.Task | None = None
        self._quitting = False  # this client sent Quit: the host's goodbye is expected

    @classmethod
    def for_request(cls, request: SessionRequest, *, socket: Path | None = None
                    ) -> "SocketTransport":
        """The session `request` names: the host at `socket`, else a live one, else a new
        host."""
        return cls(lambda: socket or locate_or_start(request), cwd=str(request.cwd))

    @property
    def quit_sent(self) -> bool:
        """This client ended the session (Quit); otherwise leaving it only detaches."""
        return self._quitting

    def listen(self, deliver: Deliver) -> None:
        self._deliver = deliver

    async def connect(self) -> None:
        """Find or start the host and read its snapshot (then `ready`: `open()` is cheap)."""
        if self.client is None:
            path = await asyncio.to_thread(self._locate)
            self.client = await HostClient.connect(path)
            self.info = self.client.info
            self.ready = True

    async def open(self) -> Opened:
        try:
            await self.connect()
            client = self.client
            if self._deliver is not None:
                client.bus.subscribe(self._deliver)
            await client.open()  # the snapshot's state, then the live stream
            self._watch = asyncio.ensure_future(self._watch_end(client))
        finally:
            self._settled.set()
        snap = client.snapshot
        return Opened(info=snap.info, ui=snap.ui, replay=list(snap.events))

    async def _watch_end(self, client: HostClient) -> None:
        """Say so in the chat when the host goes away while we are attached."""
        await client.ended.wait()
        if client.end_reason == "detached" or self._quitting:
            return  # our own doing: the UI is on its way out
        why = client.end_message or client.end_reason
        client.bus.publish(ev.Notice(level="error", message=f"the session host is gone: {why}"))

    async def handle(self, command: Command) -> Reply:
        await self._settled.wait()
        if self.client is None:
            return Reply(ok=False, code=SESSION_CLOSED, message="the session could not start")
        self._quitting = self._quitting or isinstance(command, Quit)
        return await self.client.handle(command)

    async def saved_sessions(self) -> list[SavedSession]:
        return [] if self.client is None else list(self.client.snapshot.saved)

    async def close(self) -> None:
        """Detach (the host carries on unless a Quit ended it)."""
        self._settled.set()
        if self._watch is not None:
            self._watch.cancel()
        if self.client is not None:
            await self.client.close()


def locate_or_start(request: SessionRequest) -> Path:
    """A live host for `--resume ID` / `--continue` when there is one; else a new host."""
    from .launch import start_host
    from .paths import live_sessions

    resume = request.resume
    if resume or request.continue_:
        live = live_sessions()
        status = live.get(resume) if resume else None
        if status is None and not resume:
            status = _latest_if_live(request, live)
        if status is not None:
            from .paths import socket_path

            return socket_path(status.session_id)
    return start_host(request).socket


def _latest_if_live(request: SessionRequest, live: dict) -> Any:
    """`--continue` reopens the latest session of the directory: attach when that one is live."""
    from ..session.store import HistoryStore

    store = HistoryStore()
    try:
        row = store.latest(str(request.cwd))
    finally:
        store.close()
    return live.get(row.id) if row is not None else None

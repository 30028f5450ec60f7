"""`HostClient`: a session over a host's socket, for a UI (the `SessionApi` facade).

`connect(path)` says `attach` and reads the snapshot; the caller draws it (`snapshot.events`
as history, then `state_events()` as live events: panels, pending approvals and questions,
the turn's state, the reply being streamed) and then calls `start()`, which publishes every
later event on the client's own `bus` in order. Events carry sequence numbers: one already
seen is skipped, a gap ends the connection (it would mean a lost event). `handle(command)`
sends a command and awaits its reply. `close()` detaches: the host carries on.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import msgspec

from ..protocol import bus as ev
from ..protocol.commands import Command, Reply, SessionInfo
from ..protocol.errors import DETACHED
from . import protocol as wire

CLIENT_READ_LIMIT = 1 << 30  # the host is trusted; a snapshot line can be large
CONNECT_TIMEOUT_S = 10.0


class HostGone(Exception):
    pass


class HostClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 snapshot: wire.Snapshot, *, bus: ev.Bus | None = None,
                 path: Path | None = None) -> None:
        self.reader = reader
        self.writer = writer
        self.snapshot = snapshot
        self.path = path
        self.bus = bus or ev.Bus()
        self.info: SessionInfo = snapshot.info
        self.seq = snapshot.seq
        self.ended = asyncio.Event()
        self.end_reason = ""
        self.end_message = ""
        self._ids = 0
        self._waiting: dict[int, asyncio.Future] = {}
        self._task: asyncio.Task | None = None

    @classmethod
    async def connect(cls, path: Path | str, *, history: int = wire.SNAPSHOT_EVENTS,
                      bus: ev.Bus | None = None,
                      timeout: float = CONNECT_TIMEOUT_S) -> "HostClient":
        """Attach to the host at `path`; raises HostGone when it refuses or is not there."""
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(
                os.fspath(path), limit=CLIENT_READ_LIMIT), timeout)
        except (OSError, asyncio.TimeoutError) as err:
            raise HostGone(f"no session host at {path}: {err}") from None
        writer.write(wire.encode(wire.Attach(version=wire.PROTOCOL_VERSION, history=history)))
        try:
            frame = await asyncio.wait_for(_read_frame(reader), timeout)
        except (HostGone, asyncio.TimeoutError, ConnectionError) as err:
            writer.close()
            raise HostGone(f"the session host at {path} did not answer: {err}") from None
        if isinstance(frame, wire.Bye):
            writer.close()
            raise HostGone(f"the session host refused: {frame.reason} {frame.message}".strip())
        if not isinstance(frame, wire.Snapshot):
            writer.close()
            raise HostGone(f"the session host sent {type(frame).__name__} before its snapshot")
        return cls(reader, writer, frame, bus=bus, path=Path(path))

    # drawing the snapshot ------------------------------------------------------------------
    def state_events(self) -> list[ev.Event]:
        """After the history (`snapshot.events`), what a client applies as live to show the
        session as it is now: every open panel, the pending approvals and questions, the
        turn's state, and the reply being streamed."""
        snap = self.snapshot
        out: list[ev.Event] = [*snap.panels, *snap.approvals, *snap.questions, snap.turn]
        if snap.streaming:
            out.append(ev.AssistantDelta(text=snap.streaming))
        return out

    def start(self) -> None:
        """Publish live events on `bus` from now on."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._read_loop())

    async def open(self, **_: Any) -> None:
        """As `Session.open`, for a UI that opens what it was given: the snapshot's state
        goes on the bus as live events, then the live stream follows."""
        for event in self.state_events():
            self.bus.publish(event)
        self.start()

    # commands ----------------------------------------------------------------------------
    async def handle(self, command: Command) -> Reply:
        frame = await self._request(lambda n: wire.CommandFrame(id=n, command=command))
        return frame.reply if isinstance(frame, wire.ReplyFrame) else _gone(self)

    async def page(self, before: int, limit: int = wire.SNAPSHOT_EVENTS
                   ) -> tuple[int, list[ev.Event]]:
        """Chat events older than seq `before`: (seq of the first, events)."""
        frame = await self._request(lambda n: wire.Page(id=n, before=before, limit=limit))
        if not isinstance(frame, wire.PageFrame):
            return before, []
        return frame.first_seq, frame.events

    async def _request(self, make) -> wire.Frame | None:
        if self.ended.is_set():
            return None
        self._ids += 1
        number = self._ids
        future = asyncio.get_running_loop().create_future()
        self._waiting[number] = future
        try:
            self.writer.write(wire.encode(make(number)))
            if self._task is None:  # nobody reads yet: read until our answer comes
                self.start()
            return await future
        except ConnectionError:
            return None
        finally:
            self._waiting.pop(number, None)

    async def close(self) -> None:
        """Detach; the host goes on."""
        if not self.ended.is_set():
            try:
                self.writer.write(wire.encode(wire.Detach()))
                await asyncio.wait_for(self.writer.drain(), 2)
            except (ConnectionError, asyncio.TimeoutError, RuntimeError):
                pass
        self._end("detached")
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self.writer.close()

    detach = close

    # reading -----------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        try:
            while True:
                frame = await _read_frame(self.reader)
                if isinstance(frame, wire.EventFrame):
                    if frame.seq <= self.seq:
                        continue  # seen already (in the snapshot)
                    first = frame.first or frame.seq  # streamed text: events first..seq
                    if first != self.seq + 1:
                        self._end("gap", f"events {self.seq + 1}..{first - 1} missing")
                        return
                    self.seq = frame.seq
                    self.bus.publish(frame.event)
                elif isinstance(frame, (wire.ReplyFrame, wire.PageFrame)):
                    future = self._waiting.get(frame.id)
                    if future is not None and not future.done():
                        future.set_result(frame)
                elif isinstance(frame, wire.Bye):
                    self._end(frame.reason, frame.message)
                    return
        except (HostGone, ConnectionError) as err:
            self._end("lost", str(err))
        finally:
            self.writer.close()

    def _end(self, reason: str, message: str = "") -> None:
        if self.ended.is_set():
            return
        self.end_reason, self.end_message = reason, message
        self.ended.set()
        for future in self._waiting.values():
            if not future.done():
                future.set_result(None)


async def _read_frame(reader: asyncio.StreamReader) -> wire.Frame:
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError:
        raise HostGone("the session host closed the connection") from None
    except asyncio.LimitOverrunError:
        raise HostGone("a frame from the host is too large") from None
    try:
        return wire.decode_host(line)
    except msgspec.DecodeError as err:
        raise HostGone(f"the host sent a bad frame: {err}") from None


def _gone(client: HostClient) -> Reply:
    why = client.end_message or client.end_reason or "gone"
    return Reply(ok=False, code=DETACHED, message=f"the session host is not attached: {why}")

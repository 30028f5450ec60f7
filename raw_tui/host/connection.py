"""The host's side of one client connection: frames out through its writer, never blocking
the host (`SessionHost` in server.py owns them); a refused client is said bye to and closed
without a reset."""

from __future__ import annotations

import asyncio
import socket
import struct

from ..protocol import bus as ev
from . import protocol as wire

LAZY_FLUSH_S = 0.004  # streamed text waits at most this long (a frame is 16 ms)
# after saying bye to a client it refuses, what the client still sends is read away for this
# long, or this much: closing a socket with unread input resets it, and the bye can be lost
LINGER_S = 1.0
LINGER_BYTES = 4 * 1024 * 1024
_PEERCRED = struct.Struct("3i")  # pid, uid, gid


def peer_uid(sock: socket.socket) -> int:
    data = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
    return _PEERCRED.unpack(data)[1]


class Client:
    """One attached connection. Frames go out through its writer, never blocking the host.
    A frame is written at once, with any streamed text waiting before it (order is kept);
    streamed text waits up to `LAZY_FLUSH_S` for more and crosses as one `event` frame
    (`first`..`seq`), so a fast stream costs an encoding, a system call and a wake-up of
    the client per few milliseconds, not per token."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.attached = False
        self.closed = False
        self._pending: list[bytes] = []
        self._later: asyncio.TimerHandle | None = None
        self._deltas: list[ev.AssistantDelta] = []  # streamed, not sent yet
        self._deltas_first = 0  # seq of _deltas[0]

    def send(self, data: bytes) -> None:
        if self.closed:
            return
        self._take_deltas()
        self._pending.append(data)
        self._flush()

    def stream(self, seq: int, delta: ev.AssistantDelta) -> None:
        """Streamed text: sent with what follows it, or `LAZY_FLUSH_S` from now."""
        if self.closed:
            return
        if self._deltas and self._deltas[-1].turn_id != delta.turn_id:
            self._take_deltas()
        if not self._deltas:
            self._deltas_first = seq
        self._deltas.append(delta)
        if self._later is None:
            self._later = asyncio.get_running_loop().call_later(LAZY_FLUSH_S, self._flush)

    def _take_deltas(self) -> None:
        """The streamed text waiting, as one frame at the end of `_pending`."""
        deltas, self._deltas = self._deltas, []
        if not deltas:
            return
        last = self._deltas_first + len(deltas) - 1
        joined = deltas[0] if len(deltas) == 1 else ev.AssistantDelta(
            text="".join(d.text for d in deltas), turn_id=deltas[0].turn_id)
        self._pending.append(wire.encode(wire.EventFrame(
            seq=last, event=joined, first=self._deltas_first if len(deltas) > 1 else 0)))

    def _flush(self) -> None:
        if self._later is not None:
            self._later.cancel()
            self._later = None
        self._take_deltas()
        data, self._pending = b"".join(self._pending), []
        if self.closed or not data:
            return
        if self.writer.transport.get_write_buffer_size() > wire.MAX_CLIENT_BUFFER:
            self.abort()  # it stopped reading: drop it rather than grow without bound
            return
        self.writer.write(data)

    def bye(self, reason: str, message: str = "") -> None:
        self.send(wire.encode(wire.Bye(reason=reason, message=message)))
        self.close()

    async def bye_and_linger(self, reader: asyncio.StreamReader, reason: str,
                             message: str) -> None:
        """Say bye, end the writing half, read away what the client still sends (up to
        `LINGER_BYTES` or `LINGER_S`), then close: the client reads its bye before EOF."""
        self.send(wire.encode(wire.Bye(reason=reason, message=message)))
        self.shut()
        try:
            async with asyncio.timeout(LINGER_S):
                left = LINGER_BYTES
                while left > 0 and (chunk := await reader.read(min(left, 1 << 16))):
                    left -= len(chunk)
        except (TimeoutError, ConnectionError):
            pass
        self.close()

    def shut(self) -> None:
        """Send what waits and end the writing half; the reading half stays open."""
        if not self.closed:
            self._flush()
            self.closed = True
            if self.writer.can_write_eof():
                self.writer.write_eof()

    def close(self) -> None:
        self.shut()
        if not self.writer.is_closing():
            self.writer.close()

    def abort(self) -> None:
        self.closed = True
        self._pending = []
        self._deltas = []
        if self._later is not None:
            self._later.cancel()
        self.writer.transport.abort()

"""A small real HTTP/1.1 server on 127.0.0.1 for protocol tests.

It runs its own asyncio loop in a thread, so sync tests (a `raw-tui run` subprocess) and
async tests (a provider in the test's loop) can both use it. Each request takes the next
queued `Reply` (or the default one) and is recorded — method, path, headers, JSON body — so
a test can assert what the client sent. A reply streams its chunks with chunked transfer
encoding, as real providers do, and can stall (send nothing more until the client leaves)
or drop the connection after some chunks. `Recorded.client_gone` tells when the client
closed its side.
"""

from __future__ import annotations

import asyncio
import collections
import http
import json
import socket
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

STALL_LIMIT_S = 30.0


@dataclass
class Reply:
    status: int = 200
    content_type: str = "text/event-stream"
    chunks: list[bytes] = field(default_factory=list)
    body: bytes | None = None  # a whole body sent with Content-Length (error replies)
    stall_after: int | None = None  # after this many pieces: send nothing more, wait for the client to leave
    drop_after: int | None = None  # after this many pieces: close the socket mid-body
    split: int | None = None  # re-cut the stream into pieces of this many bytes (lines cut anywhere)
    chunk_delay: float = 0.0
    silent: bool = False  # send nothing at all, not even the status line; wait for the client to leave

    def pieces(self) -> list[bytes]:
        if not self.split:
            return list(self.chunks)
        data = b"".join(self.chunks)
        return [data[i : i + self.split] for i in range(0, len(data), self.split)]


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    raw_body: bytes
    client_gone: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)

    @property
    def body(self) -> Any:
        return json.loads(self.raw_body) if self.raw_body else None


ReplySource = Reply | Callable[[Recorded], Reply]


def no_reply(_: Recorded) -> Reply:
    return Reply(status=500, content_type="application/json",
                 body=b'{"error": {"message": "test server: no reply queued"}}')


class ProtocolServer:
    def __init__(self, default: ReplySource = no_reply) -> None:
        self.default = default
        self.queue: collections.deque[ReplySource] = collections.deque()
        self.requests: list[Recorded] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="protocol-server", daemon=True)

    # life cycle ------------------------------------------------------------------------

    def start(self) -> ProtocolServer:
        self._thread.start()
        if not self._ready.wait(5):
            raise RuntimeError("protocol server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(5)

    def __enter__(self) -> ProtocolServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def enqueue(self, *replies: ReplySource) -> None:
        self.queue.extend(replies)

    @property
    def last(self) -> Recorded:
        return self.requests[-1]

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        try:
            self._loop.run_until_complete(self._main())
        finally:
            self._loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        tasks: set[asyncio.Task[None]] = set()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            tasks.add(task)
            try:
                await self._serve(reader, writer)
            finally:
                tasks.discard(task)

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop.wait()
        server.close()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # one connection --------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            recorded = await read_request(reader)
            if recorded is None:
                return
            self.requests.append(recorded)
            source = self.queue.popleft() if self.queue else self.default
            reply = source(recorded) if callable(source) else source
            await self._send(reply, recorded, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _send(self, reply: Reply, recorded: Recorded, reader: asyncio.StreamReader,
                    writer: asyncio.StreamWriter) -> None:
        if reply.silent:
            await watch_client(reader, recorded, timeout=STALL_LIMIT_S)
            return
        writer.write(status_and_headers(reply))
        if reply.body is not None:
            writer.write(reply.body)
            await writer.drain()
            recorded.finished.set()
            await watch_client(reader, recorded, timeout=1.0)
            return
        await writer.drain()
        for count, piece in enumerate(reply.pieces()):
            if reply.drop_after == count:
                writer.transport.abort()
                recorded.finished.set()
                return
            if reply.stall_after == count:
                await watch_client(reader, recorded, timeout=STALL_LIMIT_S)
                return
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            if reply.chunk_delay:
                await asyncio.sleep(reply.chunk_delay)
        if reply.stall_after is not None:  # stall after the last piece, before the end
            await watch_client(reader, recorded, timeout=STALL_LIMIT_S)
            return
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        recorded.finished.set()
        await watch_client(reader, recorded, timeout=1.0)


async def read_request(reader: asyncio.StreamReader) -> Recorded | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return Recorded(method=method, path=path, headers=headers, raw_body=body)


def status_and_headers(reply: Reply) -> bytes:
    try:
        phrase = http.HTTPStatus(reply.status).phrase
    except ValueError:
        phrase = "Status"
    lines = [f"HTTP/1.1 {reply.status} {phrase}", f"content-type: {reply.content_type}", "connection: close"]
    if reply.body is not None:
        lines.append(f"content-length: {len(reply.body)}")
    else:
        lines.append("transfer-encoding: chunked")
        lines.append("cache-control: no-cache")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def watch_client(reader: asyncio.StreamReader, recorded: Recorded, timeout: float) -> None:
    """Wait until the client closes its side (EOF or reset), at most `timeout` seconds."""
    try:
        while await asyncio.wait_for(reader.read(65536), timeout):
            pass
    except asyncio.TimeoutError:
        return
    except ConnectionError:
        pass
    recorded.client_gone.set()


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]

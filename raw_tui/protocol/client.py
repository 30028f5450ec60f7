"""The transport seam: how a client (the Textual UI, later `raw-tui attach`) reaches a session.

A client sees a session only through a `SessionClient`; nothing but msgspec Structs from
`raw_tui.protocol.bus` (events) and `raw_tui.protocol.commands` (commands, replies, info, settings, saved
sessions) crosses it:

- `listen(deliver)`: every event goes to this one callback, in publication order, on the
  client's event loop. Called once, before `open()`.
- `await open() -> Opened`: open (or attach to) the session. `Opened` carries the session's
  `info`, its `ui` settings and the saved history to draw (`replay`, events already
  published before this client came). Raises the session's error (a `RawError` with a code:
  a config error, an unknown session) when it cannot open.
- `info`: `SessionInfo` (a placeholder until `open()` returns); `ready`: the session is there
  already, so `open()` is cheap (tests, an attached socket) and may run before the first frame.
- `await handle(command) -> Reply`: one command, one reply.
- `await saved_sessions() -> list[SavedSession]`: the other saved sessions of this directory.
- `await close()`: close the session cleanly (SessionEnd runs); safe to call twice.

Two transports live here: `InProcessTransport` hands Structs over as they are (the engine in
the same process: `--no-detach`, tests); `EncodingTransport` wraps another transport and
encodes then decodes every event, command, reply and answer with msgspec — the same bytes a
socket would carry, so whatever cannot cross a socket fails now. The session host (docs/host.md)
implements `SessionClient` over a Unix socket with the same Structs.

The engine side of the seam is `commands.SessionApi` (what `Session` implements).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Protocol

import msgspec

from . import bus as events
from .commands import (AnyCommand, Command, Reply, SavedSession, SessionApi, SessionInfo,
                       UiSettings)
from .errors import SESSION_CLOSED

Deliver = Callable[[events.Event], None]
Opener = Callable[[], "tuple[SessionApi, list[events.Event]]"]


class Opened(msgspec.Struct, frozen=True):
    """What a client learns when the session opens."""

    info: SessionInfo
    ui: UiSettings
    replay: list[events.AnyEvent] = []


class SessionClient(Protocol):
    info: SessionInfo
    ready: bool

    def listen(self, deliver: Deliver) -> None: ...

    async def open(self) -> Opened: ...

    async def handle(self, command: Command) -> Reply: ...

    async def saved_sessions(self) -> list[SavedSession]: ...

    async def close(self) -> None: ...


def placeholder_info(cwd: str) -> SessionInfo:
    """The info a client shows while its session opens."""
    return SessionInfo(session_id="", agent="raw-tui", model="", max_steps=0, cwd=cwd)


class InProcessTransport:
    """The session runs in this process: events and commands pass as Python objects.

    Built either from a session that is already there (`of(session)`) or from an `opener`
    that builds it (`open()` calls it: loading the config, tools and hooks happens then, after
    the client's first frame). A command sent before the session is open waits for it."""

    def __init__(self, opener: Opener, *, cwd: str) -> None:
        self._opener = opener
        self.session: SessionApi | None = None
        self._replay: list[events.Event] = []
        self.info = placeholder_info(cwd)
        self.ready = False
        self._deliver: Deliver | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._settled = asyncio.Event()
        self._opened = False
        self._closed = False

    @classmethod
    def of(cls, session: SessionApi, replay: list[events.Event] | None = None
           ) -> "InProcessTransport":
        transport = cls(lambda: (session, list(replay or ())), cwd=session.info.cwd)
        transport._adopt(session, list(replay or ()))
        return transport

    def _adopt(self, session: SessionApi, replay: list[events.Event]) -> None:
        self.session, self._replay = session, replay
        self.info = session.info
        self.ready = True
        if self._deliver is not None and self._unsubscribe is None:
            self._unsubscribe = session.bus.subscribe(self._deliver)

    def listen(self, deliver: Deliver) -> None:
        self._deliver = deliver
        if self.session is not None and self._unsubscribe is None:
            self._unsubscribe = self.session.bus.subscribe(deliver)

    async def open(self) -> Opened:
        try:
            if self.session is None:
                self._adopt(*self._opener())
            session = self.session
            if not self._opened:
                self._opened = True
                await session.open(watch=True)
        finally:
            self._settled.set()
        return Opened(info=session.info, ui=session.ui_settings(), replay=self._replay)

    async def handle(self, command: Command) -> Reply:
        await self._settled.wait()
        if self.session is None:
            return Reply(ok=False, code=SESSION_CLOSED, message="the session could not start")
        return await self.session.handle(command) or Reply()

    async def saved_sessions(self) -> list[SavedSession]:
        return [] if self.session is None else self.session.saved_sessions()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._settled.set()
        if self.session is not None:
            await self.session.close()
        if self._unsubscribe is not None:
            self._unsubscribe()


class EncodingTransport:
    """Another transport with every crossing encoded and decoded by msgspec (strictly, into
    the declared types): what the socket to a session host will carry."""

    def __init__(self, inner: SessionClient) -> None:
        self.inner = inner
        self._encoder = msgspec.json.Encoder()
        self._events = msgspec.json.Decoder(events.AnyEvent)
        self._commands = msgspec.json.Decoder(AnyCommand)
        self._reply = msgspec.json.Decoder(Reply)
        self._opened = msgspec.json.Decoder(Opened)
        self._info = msgspec.json.Decoder(SessionInfo)
        self._saved = msgspec.json.Decoder(list[SavedSession])

    def _cross(self, value: Any, decoder: msgspec.json.Decoder) -> Any:
        return decoder.decode(self._encoder.encode(value))

    @property
    def info(self) -> SessionInfo:
        return self._cross(self.inner.info, self._info)

    @property
    def ready(self) -> bool:
        return self.inner.ready

    def listen(self, deliver: Deliver) -> None:
        def decoded(event: events.Event) -> None:
            deliver(self._cross(event, self._events))

        decoded.__qualname__ = "the encoding transport"  # named in the bus's failure notice
        self.inner.listen(decoded)

    async def open(self) -> Opened:
        return self._cross(await self.inner.open(), self._opened)

    async def handle(self, command: Command) -> Reply:
        return self._cross(await self.inner.handle(self._cross(command, self._commands)),
                           self._reply)

    async def saved_sessions(self) -> list[SavedSession]:
        return self._cross(await self.inner.saved_sessions(), self._saved)

    async def close(self) -> None:
        await self.inner.close()


TRANSPORTS = ("in-process", "encoding")
TRANSPORT_ENV = "RAW_TUI_TRANSPORT"  # `encoding`: run the UI over EncodingTransport


def with_transport(name: str | None, inner: InProcessTransport) -> SessionClient:
    """`inner` as is, or wrapped in the transport named `name` (TRANSPORTS)."""
    if not name or name == "in-process":
        return inner
    if name == "encoding":
        return EncodingTransport(inner)
    raise ValueError(f"{TRANSPORT_ENV}: unknown transport {name!r} "
                     f"(expected one of {', '.join(TRANSPORTS)})")

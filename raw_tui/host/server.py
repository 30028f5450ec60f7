"""`SessionHost`: one session served over a Unix socket to any number of clients.

The host numbers every event the session publishes (`seq`), keeps the chat events (all but
`assistant_delta`, whose text is kept as the reply being streamed) for snapshots and paging,
and follows what waits for a user (approval requests, questions) and the turn's state. A
client's snapshot is built and the client joins the live stream in one step of the event
loop, so no event falls between the two or reaches the client twice.

Only the host writes history (the session's store subscriber). A client that sends a frame
that does not decode, is too long, or comes from another uid is closed; the host goes on.
"""

from __future__ import annotations

import asyncio
import bisect
import os
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from ..protocol import bus as ev
from ..protocol import commands as cmd
from ..protocol.errors import INTERNAL_ERROR
from . import protocol as wire
from .connection import Client, peer_uid
from .paths import Bound, bind_socket, release_socket

IDLE_CHECK_MAX_S = 30.0
# from Python 3.13 asyncio removes the socket on close by itself; ours does it under the
# directory's lock (raw_tui/host/paths.py)
_NO_CLEANUP = {"cleanup_socket": False} if sys.version_info >= (3, 13) else {}


class SessionHost:
    def __init__(self, session: Any, *, history: list[ev.Event] | None = None,
                 idle_timeout_s: float = 86400.0) -> None:
        self.session = session
        self.idle_timeout_s = idle_timeout_s
        self.seq = 0
        self.chat: list[ev.Event] = []  # chat events, with their seqs in chat_seqs
        self.chat_seqs: list[int] = []
        self.streaming: list[str] = []
        self.approvals: dict[str, ev.ApprovalRequest] = {}
        self.questions: dict[str, ev.InteractionRequest] = {}
        self.turn = ev.TurnState(state="idle")
        self.clients: set[Client] = set()
        self.ended = asyncio.Event()
        self.end_reason = ""
        self.last_active = time.monotonic()
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()
        self._idle_task: asyncio.Task | None = None
        self._bound: Bound | None = None
        for event in history or ():
            self._remember(event, live=False)
        self._unsubscribe = session.bus.subscribe(self._on_event)

    # events ------------------------------------------------------------------------------
    def _on_event(self, event: ev.Event) -> None:
        seq = self._remember(event, live=True)
        attached = [client for client in self.clients if client.attached]
        if isinstance(event, ev.AssistantDelta):
            for client in attached:
                client.stream(seq, event)
        elif attached:
            data = wire.encode(wire.EventFrame(seq=seq, event=event))
            for client in attached:
                client.send(data)
        if isinstance(event, ev.RunEnd):
            self.last_active = time.monotonic()

    def _remember(self, event: ev.Event, *, live: bool) -> int:
        self.seq += 1
        if isinstance(event, ev.AssistantDelta):
            if live:
                self.streaming.append(event.text)
            return self.seq
        if isinstance(event, (ev.AssistantText, ev.ToolCall, ev.UserMessage, ev.RunEnd)):
            self.streaming.clear()
        if isinstance(event, ev.TurnState):
            self.turn = event  # state, not chat: the snapshot carries the latest
            return self.seq
        if isinstance(event, ev.ToolOutput):
            return self.seq  # live only, as in the history: the next one comes soon
        self.chat.append(event)
        self.chat_seqs.append(self.seq)
        if not live:
            return self.seq
        if isinstance(event, ev.ApprovalRequest):
            self.approvals[event.call_id] = event
        elif isinstance(event, (ev.ApprovalDecision, ev.ToolResultEvent)):
            self.approvals.pop(event.call_id, None)
        elif isinstance(event, ev.InteractionRequest):
            self.questions[event.request_id] = event
        elif isinstance(event, ev.InteractionSettled):
            self.questions.pop(event.request_id, None)
        return self.seq

    @property
    def state(self) -> str:
        """What `sessions list` says: waiting for approval, waiting for a question, running,
        idle."""
        if self.approvals:
            return "waiting for approval"
        if self.questions:
            return "waiting for a question"
        if self.session.busy:
            return "running"
        return "idle"

    def snapshot(self, history: int) -> wire.Snapshot:
        history = max(0, min(history, wire.MAX_PAGE_EVENTS))
        start = max(0, len(self.chat) - history)
        events = self.chat[start:]
        first = self.chat_seqs[start] if events else self.seq + 1
        return wire.Snapshot(
            version=wire.PROTOCOL_VERSION, seq=self.seq, info=self.session.info, events=events,
            first_seq=first, panels=self.session.panels.panels(),
            approvals=list(self.approvals.values()), questions=list(self.questions.values()),
            turn=self.turn, streaming="".join(self.streaming),
            ui=self.session.ui_settings(), saved=self.session.saved_sessions(),
            clients=sum(1 for c in self.clients if c.attached))

    def page(self, before: int, limit: int) -> tuple[int, list[ev.Event]]:
        end = bisect.bisect_left(self.chat_seqs, before)
        start = max(0, end - max(0, min(limit, wire.MAX_PAGE_EVENTS)))
        events = self.chat[start:end]
        return (self.chat_seqs[start] if events else before), events

    def status(self) -> wire.Status:
        info = self.session.info
        return wire.Status(version=wire.PROTOCOL_VERSION, session_id=info.session_id,
                           cwd=info.cwd, agent=info.agent, state=self.state,
                           clients=sum(1 for c in self.clients if c.attached), pid=os.getpid())

    # the socket ----------------------------------------------------------------------------
    async def start(self, path: Path) -> None:
        """Listen on `path` (mode 0600), never over a live host's socket: a stale one is
        taken over, a live one raises SessionLive (raw_tui/host/paths.py)."""
        bound = bind_socket(path)
        try:
            self._server = await asyncio.start_unix_server(
                self._connection, sock=bound.sock, limit=wire.MAX_FRAME_BYTES,
                **_NO_CLEANUP)
        except BaseException:
            bound.sock.close()
            release_socket(bound)
            raise
        self._bound = bound
        self._idle_task = asyncio.ensure_future(self._idle_watch())

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        client = Client(writer)
        self.clients.add(client)
        task = asyncio.current_task()
        if task is not None:  # stop() waits for it
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            sock = writer.get_extra_info("socket")
            if peer_uid(sock) != os.getuid():
                raise _Bye("refused", "another user's session")
            try:
                first = await asyncio.wait_for(self._read(reader), wire.HANDSHAKE_TIMEOUT_S)
            except asyncio.TimeoutError:
                raise _BadFrame(f"no attach or probe within {wire.HANDSHAKE_TIMEOUT_S:g} s") \
                    from None
            if not self._handshake(client, first):
                return
            while not client.closed:
                frame = await self._read(reader)
                if frame is None:
                    break
                self._serve(client, frame)
        except _Bye as bye:
            await client.bye_and_linger(reader, bye.reason, bye.message)
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            self.clients.discard(client)
            client.close()
            if not self.clients:
                self.last_active = time.monotonic()

    async def _read(self, reader: asyncio.StreamReader) -> wire.Frame | None:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as err:
            if err.partial.strip():
                raise _BadFrame("frame not ended by a newline") from None
            return None
        except asyncio.LimitOverrunError:
            raise _BadFrame(f"frame longer than {wire.MAX_FRAME_BYTES} bytes") from None
        try:
            return wire.decode_client(line)
        except msgspec.DecodeError as err:
            raise _BadFrame(f"bad frame: {err}") from None
        except RecursionError:  # msgspec's own depth limit (found by scripts/fuzz)
            raise _BadFrame("bad frame: nested too deeply") from None

    def _handshake(self, client: Client, frame: wire.Frame | None) -> bool:
        if isinstance(frame, wire.Probe):
            client.send(wire.encode(self.status()))
            client.close()
            return False
        if not isinstance(frame, wire.Attach):
            raise _BadFrame("the first frame must be attach or probe")
        if frame.version != wire.PROTOCOL_VERSION:
            raise _Bye("version", f"protocol {frame.version} is not {wire.PROTOCOL_VERSION}")
        client.attached = True  # joins the live stream in the same step as its snapshot
        client.send(wire.encode(self.snapshot(frame.history)))
        return True

    def _serve(self, client: Client, frame: wire.Frame) -> None:
        if isinstance(frame, wire.CommandFrame):
            self._spawn(self._command(client, frame))
        elif isinstance(frame, wire.Page):
            first, events = self.page(frame.before, frame.limit)
            client.send(wire.encode(wire.PageFrame(id=frame.id, first_seq=first, events=events)))
        elif isinstance(frame, wire.Detach):
            client.close()
        else:
            raise _BadFrame(f"unexpected {type(frame).__struct_config__.tag} frame")

    async def _command(self, client: Client, frame: wire.CommandFrame) -> None:
        try:
            reply = await self.session.handle(frame.command)
        except Exception as err:  # a bug in one command must not end the host
            reply = cmd.Reply(ok=False, code=INTERNAL_ERROR,
                              message=f"{type(err).__name__}: {err}")
        client.send(wire.encode(wire.ReplyFrame(id=frame.id, reply=reply or cmd.Reply())))
        if isinstance(frame.command, cmd.Quit):
            await self.stop("ended")

    # ending ------------------------------------------------------------------------------
    async def _idle_watch(self) -> None:
        """End the session when no client has been attached and no turn has run for
        `idle_timeout_s`."""
        step = max(0.05, min(IDLE_CHECK_MAX_S, self.idle_timeout_s / 4))
        while not self.ended.is_set():
            await asyncio.sleep(step)
            if self.clients or self.session.busy:
                self.last_active = time.monotonic()
            elif time.monotonic() - self.last_active >= self.idle_timeout_s:
                await self.stop("idle")

    def stop_soon(self, reason: str) -> None:
        """From a signal handler: stop at the next step of the loop."""
        self._spawn(self.stop(reason))

    async def stop(self, reason: str) -> None:
        """Close the session (SessionEnd runs; a running turn is cancelled, its commands and
        hooks end), say goodbye to every client, stop listening."""
        if self.end_reason:
            await self.ended.wait()
            return
        self.end_reason = reason
        if self._server is not None:
            self._server.close()
        if self._bound is not None:
            release_socket(self._bound)  # only while it is still ours, not a later host's
        try:
            await self.session.close()
        finally:
            for client in list(self.clients):
                client.bye("ended", reason)
            self._unsubscribe()
            if self._idle_task is not None and self._idle_task is not asyncio.current_task():
                self._idle_task.cancel()  # it sleeps up to IDLE_CHECK_MAX_S between looks
            others = self._tasks - {asyncio.current_task()}
            if others:  # connections end on their own once their writers closed
                await asyncio.wait(others, timeout=2)
            self.ended.set()

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class _Bye(Exception):
    """This client is refused: it gets `bye` with this reason and message, then is closed."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class _BadFrame(_Bye):
    def __init__(self, message: str) -> None:
        super().__init__("bad_frame", message)

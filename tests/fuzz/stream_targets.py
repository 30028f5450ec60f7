"""Fuzz targets for the two streams a peer writes into a long-lived raw-tui process: the
lines of an ACP client (`raw-tui acp`) and the frames of a session host's client. Each input
goes through the real code (the ACP connection with raw-tui's framing and agent; the host's
connection handler over a real socket pair); it must end as an answer, a refusal or a `bye`,
never as a traceback (a logged one counts, and so does a host's `internal_error` reply) nor
as the end of the connection or of the host (counted as tracebacks: "0 exits").

Used by tests/fuzz/targets.py (`targets()`).
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import socket
import time
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

SID = "$SID"  # replaced by the id of a session the rig opened
ANSWER_S = 10.0  # how long one input may take to be answered


class Broken(Exception):
    """The input ended in a traceback, or ended the connection or the host."""


class _Tracebacks(logging.Handler):
    """Every log record carrying an exception (the ACP SDK logs what it catches)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.found.append(self.format(record))


# ACP lines --------------------------------------------------------------------------------

ACP_METHODS = ["initialize", "authenticate", "session/new", "session/load", "session/list",
               "session/prompt", "session/cancel", "session/delete", "session/resume",
               "session/set_mode", "session/set_config_option", "session/fork",
               "session/close", "_raw/session/configure", "_raw/session/compact",
               "_raw/runtime/info", "_raw/panel/action", "_raw/tool/register",
               "_raw/tool/unregister", "_raw/session/undo", "_raw/nothing", "nothing"]
ACP_KEYS = ["jsonrpc", "id", "method", "params", "result", "error", "code", "message",
            "protocolVersion", "clientCapabilities", "_meta", "raw", "cwd", "mcpServers",
            "sessionId", "prompt", "type", "text", "cursor", "name", "command", "args", "env",
            "url", "headers", "panel", "action", "block", "item", "inputSchema",
            "description", "modeId", "turn", "dryRun", "data", "uri", "mimeType"]
ACP_WORDS = ["2.0", SID, "s0000000000000000", "/", "/nonexistent", "relative/dir", "text",
             "image", "resource_link", "hello", "echo", "stdio", "http", "true", "x#y",
             "panelsV2", "interactions", "toolRegister", "runtimeInfo", "/compact", "/clear"]


def _acp_inputs() -> st.SearchStrategy[bytes]:
    from tests.fuzz.targets import (HOSTILE_TEXT, NUMBERS, encoded, json_values, template,
                                    texts, weighted)

    words, keys = ACP_WORDS, ACP_KEYS
    anything = json_values(keys, words, leaves=15, deep=True)
    ident = weighted((6, st.integers(0, 50)), (2, texts(words)), (1, st.none()),
                     (1, anything), (1, NUMBERS))
    block = template({"type": st.sampled_from(["text", "image", "resource_link", "x"]),
                      "text": texts(words)}, keys, words)
    params = weighted(
        (3, template({"protocolVersion": weighted((4, st.just(1)), (1, NUMBERS)),
                      "clientCapabilities": st.just({}),
                      "_meta": template({"raw": st.dictionaries(
                          st.sampled_from(["panelsV2", "interactions", "toolRegister",
                                           "runtimeInfo", "toolCall"]),
                          weighted((4, st.booleans()), (1, anything)), max_size=3)},
                          keys, words)}, keys, words)),
        (4, template({"cwd": weighted((4, st.just("$WORK")), (1, texts(words))),
                      "mcpServers": weighted((4, st.just([])), (1, anything))}, keys, words)),
        (4, template({"sessionId": weighted((5, st.just(SID)), (1, texts(words))),
                      "prompt": st.lists(block, max_size=2)}, keys, words)),
        (2, template({"sessionId": weighted((5, st.just(SID)), (1, texts(words))),
                      "name": texts(words), "description": texts(words),
                      "inputSchema": weighted((3, st.just({"type": "object"})),
                                              (1, anything)),
                      "panel": texts(words), "action": texts(words)}, keys, words)),
        (1, anything))
    request = template({"jsonrpc": "2.0", "id": ident,
                        "method": weighted((9, st.sampled_from(ACP_METHODS)),
                                           (1, texts(words)), (1, anything)),
                        "params": params}, keys, words)
    response = template({"jsonrpc": "2.0", "id": ident,
                         "result": anything, "error": anything}, keys, words)
    not_messages = st.sampled_from(["[1,2,3]", '"str"', "42", "null", "true", "{}"]).map(
        json.loads)
    message = weighted((8, request), (2, response), (1, anything), (1, not_messages))
    lines = weighted((12, encoded(message)), (1, st.sampled_from(HOSTILE_TEXT)),
                     (1, st.binary(max_size=60).map(lambda b: b.decode("latin-1"))))
    return lines.map(lambda text: text.replace("\n", " ").encode("utf-8", "surrogatepass"))


class _Writer:
    """What the SDK's sender writes to (an asyncio StreamWriter's two methods)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.grew = asyncio.Event()

    def write(self, data: bytes) -> None:
        self.data += data
        self.grew.set()

    async def drain(self) -> None:
        return None

    def lines(self) -> list[dict]:
        out = []
        for line in bytes(self.data).split(b"\n"):
            if line.strip():
                out.append(json.loads(line))
        return out


class AcpRig:
    """raw-tui's ACP agent and connection (raw_tui.acp.agent.connect, with its framing) over
    an in-memory byte stream, one initialized session open. Rebuilt every `LIFE` inputs (and
    after a failure), so that sessions and turns do not pile up."""

    LIFE = 300

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.used = 0
        self.count = 0
        self.conn = None

    async def start(self) -> None:
        from raw_tui.acp.agent import RawAgent, connect
        from raw_tui.acp.client_tools import session_agent
        from raw_tui.session.session import Session
        from raw_tui.session.store import HistoryStore
        from tests.engine.session_kit import RecordingModel, agent_config

        self.count += 1
        root = self.scratch / f"acp{self.count}"
        config = agent_config(root, use=["builtin/read_file"])
        self.work = root / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.store = HistoryStore(root / "history.sqlite3")

        def open_session(cwd, *, session_id=None, history=None, forms=False,
                         mcp_servers=None, previews=False):
            model = RecordingModel([{"text": "ok"}] * 3)
            return Session(config, session_agent(config.agent()), cwd=cwd, store=self.store,
                           interactive=True, session_id=session_id, history=history,
                           provider=model, forms=forms, mcp_servers=mcp_servers,
                           previews=previews)

        self.agent = RawAgent(open_session, store=self.store, version="fuzz", config=config,
                              agent=config.agent())
        self.reader = asyncio.StreamReader(limit=1 << 20)
        self.writer = _Writer()
        self.conn = connect(self.agent, self.writer, self.reader)
        self.next_id = 0
        await self.ask("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        self.sid = (await self.ask("session/new", {"cwd": str(self.work), "mcpServers": []})
                    )["result"]["sessionId"]
        self.used = 0

    async def stop(self) -> None:
        if self.conn is None:
            return
        conn, self.conn = self.conn, None
        self.reader.feed_eof()
        try:
            await asyncio.wait_for(self.agent.close(grace=2), 10)
        finally:
            await conn.close()
            self.store.close()

    async def ask(self, method: str, params: dict) -> dict:
        """A well-formed request, and its answer: the connection is alive and answering."""
        self.next_id += 1
        ident = f"rig-{self.next_id}"
        start = len(self.writer.data)
        self.feed(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                              "params": params}).encode())
        deadline = time.monotonic() + ANSWER_S
        needle = ident.encode()
        while True:  # only the lines written since the last look (an input may bring 10,000s)
            data = self.writer.data
            end = data.rfind(b"\n") + 1
            if end > start:
                for line in bytes(data[start:end]).split(b"\n"):
                    if needle in line:
                        answer = json.loads(line)
                        if answer.get("id") == ident:
                            return answer
                start = end
            if self.conn._recv_task is not None and self.conn._recv_task.done():
                raise Broken("the connection stopped reading (the input ended it)")
            left = deadline - time.monotonic()
            if left <= 0:
                raise Broken(f"no answer to {method} within {ANSWER_S:g} s")
            self.writer.grew.clear()
            try:
                await asyncio.wait_for(self.writer.grew.wait(), left)
            except asyncio.TimeoutError:
                pass

    def feed(self, line: bytes) -> None:
        self.reader.feed_data(line + b"\n")

    async def one(self, line: bytes) -> None:
        if self.conn is None or self.used >= self.LIFE:
            await self.stop()
            await self.start()
        self.used += 1
        self.feed(line.replace(SID.encode(), self.sid.encode())
                  .replace(b"$WORK", str(self.work).encode()))
        try:
            await self.ask("rig/ping", {})  # answered after it: the stream goes on
        except Broken:
            await self._abandon()
            raise

    async def _abandon(self) -> None:
        try:
            await asyncio.wait_for(self.stop(), 15)
        except BaseException:  # noqa: BLE001 — a fresh rig comes next either way
            self.conn = None


def _acp_run(rig: AcpRig) -> Any:
    from tests.fuzz.targets import run_async

    handler = _Tracebacks()
    root = logging.getLogger()

    def run(line: bytes) -> None:
        handler.found.clear()
        root.addHandler(handler)
        try:
            run_async(rig.one(line))
        finally:
            root.removeHandler(handler)
        if handler.found:
            raise Broken("logged: " + handler.found[0])

    return run


# host frames ------------------------------------------------------------------------------

HOST_KEYS = ["frame", "version", "history", "id", "command", "before", "limit", "type",
             "text", "call_id", "allow", "request_id", "answers", "idempotency_key", "panel",
             "action", "block", "item", "turn_id", "model", "agent"]
HOST_WORDS = ["attach", "probe", "command", "page", "detach", "snapshot", "event", "reply",
              "bye", "prompt", "cancel", "approval_answer", "form_answer", "form_cancel",
              "panel_action", "compact", "clear", "retry", "edit_prompt", "switch_model",
              "switch_agent", "c1", "m", "main", "/compact", "/clear", "x#y", "hello"]
COMMANDS = ["prompt", "cancel", "approval_answer", "form_answer", "form_cancel",
            "panel_action", "compact", "clear", "retry", "edit_prompt", "switch_model",
            "switch_agent"]  # not `quit`: it ends the session by design (tried apart)


def _host_inputs() -> st.SearchStrategy[list[bytes]]:
    from raw_tui.host.protocol import PROTOCOL_VERSION
    from tests.fuzz.targets import NUMBERS, encoded, json_values, template, texts, weighted

    words, keys = HOST_WORDS, HOST_KEYS
    anything = json_values(keys, words, leaves=12, deep=True)
    number = weighted((6, st.integers(0, 3000)), (1, NUMBERS))
    command = template({"type": weighted((9, st.sampled_from(COMMANDS)), (1, texts(words))),
                        "text": texts(words), "call_id": texts(words),
                        "allow": st.booleans(), "request_id": texts(words),
                        "answers": st.just({}), "panel": texts(words),
                        "action": texts(words), "turn_id": texts(words),
                        "model": texts(words), "agent": texts(words)}, keys, words)
    first = weighted(
        (8, template({"frame": "attach", "version": weighted((6, st.just(PROTOCOL_VERSION)),
                                                             (1, number)),
                      "history": number}, keys, words)),
        (1, template({"frame": "probe", "version": st.just(PROTOCOL_VERSION)}, keys, words)),
        (1, anything))
    later = weighted(
        (6, template({"frame": "command", "id": number, "command": command}, keys, words)),
        (2, template({"frame": "page", "id": number, "before": number, "limit": number},
                     keys, words)),
        (1, template({"frame": weighted((4, st.sampled_from(HOST_WORDS[:9])),
                                        (1, texts(words)))}, keys, words)),
        (1, anything))
    lines = st.builds(lambda head, rest: [head, *rest], encoded(first),
                      st.lists(encoded(later), max_size=4))
    return lines.map(lambda texts_: [t.replace("\n", " ").encode("utf-8", "surrogatepass")
                                     for t in texts_])


class HostRig:
    """A session host (raw_tui.host.server.SessionHost) over a scripted session; each input
    is one client connection over a real socket pair, its lines then EOF."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.host = None
        self.count = 0

    async def start(self) -> None:
        from raw_tui.host.server import SessionHost
        from tests.engine.session_kit import make_session

        self.count += 1
        root = self.scratch / f"host{self.count}"
        self.harness = make_session(root, [{"text": "ok"}] * 100_000, interactive=True,
                                    use=["builtin/read_file"])
        self.host = SessionHost(self.harness.session, idle_timeout_s=3600)
        await self.harness.session.open()

    async def one(self, lines: list[bytes]) -> None:
        from raw_tui.host import protocol as wire

        if self.host is None or self.host.ended.is_set():
            await self.start()
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        loop = asyncio.get_running_loop()
        reader, writer = await asyncio.open_connection(sock=theirs, limit=wire.MAX_FRAME_BYTES)
        connection = asyncio.ensure_future(self.host._connection(reader, writer))
        received = bytearray()

        async def read_all() -> None:
            while True:
                data = await loop.sock_recv(ours, 65536)
                if not data:
                    return
                received.extend(data)

        reading = asyncio.ensure_future(read_all())
        try:
            await loop.sock_sendall(ours, b"".join(line + b"\n" for line in lines))
            ours.shutdown(socket.SHUT_WR)
            await asyncio.wait_for(asyncio.shield(connection), ANSWER_S)
            connection.result()  # an exception out of the handler: a traceback
            await self._settle()
            await asyncio.wait_for(reading, ANSWER_S)
        except asyncio.TimeoutError:
            raise Broken(f"the host did not finish with the connection in {ANSWER_S:g} s")
        finally:
            reading.cancel()
            connection.cancel()
            ours.close()
        if self.host.ended.is_set():
            raise Broken(f"the host ended: {self.host.end_reason}")
        for line in bytes(received).split(b"\n"):
            if not line.strip():
                continue
            frame = wire.decode_host(line)  # what the host says is always a frame
            reply = getattr(frame, "reply", None)
            if reply is not None and reply.code == "internal_error":
                raise Broken(f"a command failed inside the host: {reply.message}")

    async def _settle(self) -> None:
        """Commands still running (a turn) finish before the next input."""
        deadline = time.monotonic() + ANSWER_S
        while self.host._tasks or self.harness.session.busy:
            if time.monotonic() > deadline:
                raise Broken("a command of the input was still running after "
                             f"{ANSWER_S:g} s")
            await asyncio.sleep(0.002)


def _host_run(rig: HostRig) -> Any:
    from tests.fuzz.targets import run_async

    handler = _Tracebacks()
    root = logging.getLogger()

    def run(lines: list[bytes]) -> None:
        handler.found.clear()
        root.addHandler(handler)
        try:
            run_async(rig.one(lines))
        finally:
            root.removeHandler(handler)
        if handler.found:
            raise Broken("logged: " + handler.found[0])

    return run


def stream_targets(scratch: Path, target: Any) -> list[Any]:
    """The two targets, as `targets.Target`s (no documented error: every outcome is an
    answer, a refusal or a bye). Their rigs are closed when the interpreter exits."""
    acp, host = AcpRig(scratch), HostRig(scratch)
    atexit.register(_close, acp, host)
    return [target("acp-lines", _acp_inputs(), _acp_run(acp), ()),
            target("host-frames", _host_inputs(), _host_run(host), ())]


def _close(acp: AcpRig, host: HostRig) -> None:
    from tests.fuzz.targets import run_async

    async def close() -> None:
        await acp.stop()
        if host.host is not None and not host.host.ended.is_set():
            await host.host.stop("fuzzed")

    try:
        run_async(close())
    except Exception:  # noqa: BLE001 — the process is ending anyway
        pass

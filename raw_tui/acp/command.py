"""`raw-tui acp`: serve ACP on stdin/stdout until the client closes (docs/command-line.md, docs/acp.md).

Stdout carries protocol messages only: the process's fd 1 (and fd 0) are moved aside for the
protocol and pointed at the log file (and /dev/null), so nothing a tool, a hook or a library
prints can reach the client. Diagnostics go to `acp.log` under the state directory, and so
does fd 2 once the config has loaded: a client that reads stderr only at exit (Toad) never
blocks on a full pipe. Stderr gets one line for a config error (exit 2) and nothing else.
Everything reaches the log through the config's redactor (a pipe a thread copies from), so
no credential is kept there, whoever wrote it (a log record, a print, a child process).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from pathlib import Path
from typing import Callable

from ..paths import state_home

LOG_NAME = "acp.log"
MAX_FIRST_LINE = 1024 * 1024  # read here to answer `initialize` early (it is ~300 bytes)


def log_path() -> Path:
    return state_home() / LOG_NAME


def serve_stdio(config, agent_config) -> int:
    """Serve ACP for `agent_config` of `config` (loaded by raw_tui/cli/acp.py) on this
    process's stdin/stdout until the client closes."""
    from .. import __version__
    from .handshake import early_reply

    protocol_in, protocol_out = _take_stdio()
    end_logging = _start_logging(config.redactor)
    sdk = threading.Thread(target=_import_sdk, name="acp-import", daemon=True)
    sdk.start()  # the SDK loads while the client's `initialize` is answered here
    first, rest = _read_line(protocol_in.fileno())
    early = early_reply(first, __version__) if first else None
    flags = None
    if early is not None:
        reply, flags = early
        _write_all(protocol_out.fileno(), reply)
        logging.getLogger("raw_tui.acp").info("initialize (early): flags %s", flags)
        first = b""
    try:
        asyncio.run(serve(config, agent_config, protocol_in, protocol_out,
                          pending=first + rest, flags=flags))
    except KeyboardInterrupt:
        pass
    finally:
        _end_logging(end_logging)
    return 0


async def serve(config, agent_config, protocol_in, protocol_out, *, store=None,
                pending: bytes = b"", flags=None) -> None:
    """Serve ACP on the protocol files until the client closes; `pending` is input already
    read, `flags` what an early `initialize` negotiated."""
    from .. import __version__
    from ..session.session import Session
    from ..session.store import HistoryStore
    from .agent import RawAgent, connect
    from .client_tools import session_agent

    store = store or HistoryStore()

    def open_session(cwd: str, *, session_id=None, history=None, forms=False,
                     mcp_servers=None, previews=False):
        return Session(config, session_agent(agent_config), cwd=cwd, store=store,
                       interactive=True, session_id=session_id, history=history, forms=forms,
                       mcp_servers=mcp_servers, previews=previews)

    agent = RawAgent(open_session, store=store, version=__version__, flags=flags,
                     config=config, agent=agent_config)
    reader, writer = await _streams(protocol_in, protocol_out, pending)
    conn = connect(agent, writer, reader, listening=False)
    try:
        await conn.main_loop()
    finally:
        await asyncio.sleep(0)  # requests read just before the end start (and are tracked)
        await agent.close()
        await conn.close()
        store.close()


def _import_sdk() -> None:
    try:
        import acp.agent.router  # noqa: F401
        import acp.connection  # noqa: F401
    except Exception:  # noqa: BLE001 — the import in serve() reports it
        pass


def _read_line(fd: int) -> tuple[bytes, bytes]:
    """The first line from `fd` (with its newline) and whatever came after it; (b"", data)
    at end of input, or past MAX_FIRST_LINE bytes, without a newline (the SDK's bounded
    reader takes it from there)."""
    data = bytearray()
    while b"\n" not in data:
        chunk = os.read(fd, 65536) if len(data) <= MAX_FIRST_LINE else b""
        if not chunk:
            return b"", bytes(data)
        data += chunk
    line, _, rest = bytes(data).partition(b"\n")
    return line + b"\n", rest


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _start_logging(redactor) -> Callable[[], None]:
    """The log (`acp.log`, appended) behind a redacting pipe; the root logger, fd 1 and fd 2
    write there. Returns what ends it (`_end_logging`)."""
    from ..protocol.redact import RedactedLog

    from ..paths import private_dir

    path = log_path()
    private_dir(path.parent)  # 0700: the log quotes transcripts
    log = RedactedLog(path, redactor, name="acp-log")
    stream = os.fdopen(os.dup(log.fd), "w", buffering=1, encoding="utf-8",
                       errors="backslashreplace")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s "
                                           "%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    return log.redirect_std(restore=False)


def _end_logging(end_redirect: Callable[[], None]) -> None:
    """Everything written reaches the file: our write ends closed, the copy drained (bounded:
    a daemon a command left may still hold fd 2); fds 1 and 2 go to /dev/null."""
    logging.shutdown()
    for handler in logging.getLogger().handlers:
        stream = getattr(handler, "stream", None)
        if stream is not None:
            stream.close()
    logging.getLogger().handlers[:] = []
    end_redirect()


def _take_stdio():
    """Duplicate fd 0 and fd 1 for the protocol; fd 0 becomes /dev/null (fd 1 and fd 2 then
    become the log, `_start_logging`), so children (hooks, bash) and stray prints never
    touch the protocol streams."""
    protocol_in = os.fdopen(os.dup(0), "rb", buffering=0)
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return protocol_in, protocol_out


async def _streams(protocol_in, protocol_out, pending: bytes = b""):
    """asyncio streams over the protocol files (as the SDK's stdio_streams, other fds);
    `pending` is input read before. Regular files work too (`raw-tui acp < requests`)."""
    from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES
    from acp.stdio import _WritePipeProtocol  # the SDK's drain-aware write protocol

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    if pending:
        reader.feed_data(pending)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), protocol_in)
    except ValueError:  # not a pipe, socket or terminal
        _feed_in_thread(loop, reader, protocol_in.fileno())
    write_protocol = _WritePipeProtocol()
    try:
        transport, _ = await loop.connect_write_pipe(lambda: write_protocol, protocol_out)
    except ValueError:
        transport = _FileWriteTransport(protocol_out.fileno())
    writer = asyncio.StreamWriter(transport, write_protocol, None, loop)
    return reader, writer


def _feed_in_thread(loop, reader: asyncio.StreamReader, fd: int) -> None:
    def read() -> None:
        try:
            while chunk := os.read(fd, 65536):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=read, name="acp-stdin", daemon=True).start()


class _FileWriteTransport(asyncio.WriteTransport):
    """Blocking writes to a regular file (the protocol output redirected to one)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.closing = False

    def write(self, data) -> None:
        _write_all(self.fd, bytes(data))

    def can_write_eof(self) -> bool:
        return False

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def get_extra_info(self, name, default=None):
        return default

"""`raw-tui acp`: serve ACP on stdin/stdout until the client closes (DECISIONS.md §7, §11).

Stdout carries protocol messages only: the process's fd 1 (and fd 0) are moved aside for the
protocol and pointed at the log file (and /dev/null), so nothing a tool, a hook or a library
prints can reach the client. Diagnostics go to `acp.log` under the state directory, and so
does fd 2 once the config has loaded: a client that reads stderr only at exit (Toad) never
blocks on a full pipe. Stderr gets one line for a config error (exit 2) and nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

from ..paths import state_home

LOG_NAME = "acp.log"


def log_path() -> Path:
    return state_home() / LOG_NAME


def cmd_acp(args) -> int:
    from ..cli import load

    config = load(args)  # a config error exits 2 before anything is served
    agent_config = config.agent(args.agent)
    log_file = _start_logging()
    protocol_in, protocol_out = _take_stdio(log_file)
    try:
        asyncio.run(serve(config, agent_config, protocol_in, protocol_out))
    except KeyboardInterrupt:
        pass
    return 0


async def serve(config, agent_config, protocol_in, protocol_out, *, store=None) -> None:
    from .. import __version__
    from ..session.session import Session
    from ..session.store import HistoryStore
    from .agent import RawAgent, connect

    store = store or HistoryStore()

    def open_session(cwd: str, *, session_id=None, history=None, forms=False, offload=False):
        return Session(config, agent_config, cwd=cwd, store=store, interactive=True,
                       session_id=session_id, history=history, forms=forms, offload=offload)

    agent = RawAgent(open_session, store=store, version=__version__)
    reader, writer = await _streams(protocol_in, protocol_out)
    conn = connect(agent, writer, reader, listening=False)
    try:
        await conn.main_loop()
    finally:
        await agent.close()
        await conn.close()
        store.close()


def _start_logging():
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    log_file = open(path, "a", buffering=1, encoding="utf-8")
    handler = logging.StreamHandler(log_file)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s "
                                           "%(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    return log_file


def _take_stdio(log_file):
    """Duplicate fd 0 and fd 1 for the protocol; fd 0 becomes /dev/null, fd 1 and fd 2 the
    log, so children (hooks, bash) and stray prints never touch the protocol streams."""
    protocol_in = os.fdopen(os.dup(0), "rb", buffering=0)
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(log_file.fileno(), 1)
    os.dup2(log_file.fileno(), 2)
    return protocol_in, protocol_out


async def _streams(protocol_in, protocol_out):
    """asyncio streams over the protocol files (as the SDK's stdio_streams, other fds)."""
    from acp.stdio import _WritePipeProtocol  # the SDK's drain-aware write protocol
    from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), protocol_in)
    write_protocol = _WritePipeProtocol()
    transport, _ = await loop.connect_write_pipe(lambda: write_protocol, protocol_out)
    writer = asyncio.StreamWriter(transport, write_protocol, None, loop)
    return reader, writer

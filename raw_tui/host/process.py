"""The host process: `python -m raw_tui.host [options] --ready-fd N`.

Started by `launch.start_host` in its own session (no controlling terminal, stdio to a log
file). It opens the session as the UI would (new, `--continue`, `--resume ID`), listens on
the session's socket, runs SessionStart, then writes one JSON line to the ready pipe
(`{"ok": true, "session_id", "socket"}` or `{"ok": false, "code", "message"}`) and serves
until the session ends: Quit from a client, the idle timeout, SIGTERM or SIGINT (SIGHUP is
ignored).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..protocol import errors

if TYPE_CHECKING:
    from ..session.request import SessionRequest


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="raw-tui-host")
    parser.add_argument("--config")
    parser.add_argument("--agent")
    parser.add_argument("--model")
    parser.add_argument("--cwd", required=True)
    parser.add_argument("--continue", dest="continue_", action="store_true")
    parser.add_argument("--resume")
    parser.add_argument("--ready-fd", type=int, required=True)
    return parser


class Ready:
    """The pipe the launcher waits on: one line, then closed."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def say(self, **fields: Any) -> None:
        if self.fd < 0:
            return
        try:
            os.write(self.fd, (json.dumps(fields) + "\n").encode())
        except OSError:
            pass
        finally:
            os.close(self.fd)
            self.fd = -1


def main(argv: list[str] | None = None) -> int:
    from ..session.request import SessionRequest

    args = _parser().parse_args(argv)
    request = SessionRequest(cwd=Path(args.cwd).resolve(), config=args.config, agent=args.agent,
                             model=args.model, continue_=args.continue_, resume=args.resume)
    ready = Ready(args.ready_fd)
    # no terminal of ours can hang up: SIGHUP is ignored, by a handler rather than SIG_IGN,
    # which every command and hook would inherit; SIGINT ends the host as SIGTERM does
    signal.signal(signal.SIGHUP, _ignore)
    log(f"host pid {os.getpid()} starting in {request.cwd}")
    try:
        return asyncio.run(serve(request, ready))
    except KeyboardInterrupt:  # SIGINT before the session was served
        ready.say(ok=False, code=errors.HOST_FAILED, message="interrupted while starting")
        log("host interrupted while starting")
        return 130
    except Exception as err:
        ready.say(ok=False, code=getattr(err, "code", errors.ERROR), message=_line(err))
        log(f"host failed: {_line(err)}")
        return 1
    finally:
        log("host exiting")


async def serve(request: SessionRequest, ready: Ready) -> int:
    from ..protocol.errors import ConfigError
    from ..session import open_session
    from .paths import SessionLive, socket_path
    from .server import SessionHost

    try:
        session, history = open_session(request, interactive=True)
    except ConfigError as err:
        ready.say(ok=False, code=errors.HOST_CONFIG, message=err.line())
        return 2
    store = session.store
    end_redaction = _redact_output(session.redactor)
    refused = False  # another host serves the session: nothing of it is ours to close
    try:
        path = socket_path(session.session_id)
        ui = session.config.raw.ui
        host = SessionHost(session, history=history,
                           idle_timeout_s=float(ui.detached_idle_timeout_s))
        try:
            await host.start(path)  # never over a live host's socket
        except SessionLive as err:
            refused = True  # its SessionEnd is the live host's to run, not ours
            ready.say(ok=False, code=err.code, message=err.message)
            log(f"not started: {err.message}")
            return 1
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, host.stop_soon, "terminated")
        loop.add_signal_handler(signal.SIGINT, host.stop_soon, "interrupted")
        await session.open(watch=True)
        ready.say(ok=True, session_id=session.session_id, socket=os.fspath(path), pid=os.getpid())
        log(f"session {session.session_id} on {path}")
        await host.ended.wait()
        log(f"session {session.session_id} ended: {host.end_reason}")
        return 0
    finally:
        if not refused:
            await session.close()
        if store is not None:
            store.close()
        if end_redaction is not None:
            end_redaction()


def _redact_output(redactor) -> Callable[[], None] | None:
    """From here on, what the host writes to its log (fds 1 and 2: its own lines, a tool's
    `print` to stderr, a traceback) goes through a redacting pipe to the same file, with
    every configured secret replaced. Returns what ends it (everything written reaches the
    file, bounded), or None when the log is not a file (a host run by hand)."""
    from ..protocol.redact import RedactedLog

    try:
        path = os.readlink("/proc/self/fd/2")
    except OSError:
        return None
    if not os.path.isfile(path):
        return None
    return RedactedLog(path, redactor, name="host-log").redirect_std()


def _ignore(signum: int, frame: Any) -> None:
    pass


def log(message: str) -> None:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    print(f"{stamp} {message}", file=sys.stderr, flush=True)


def _line(err: BaseException) -> str:
    """One line for the starter: a RawError's own message (`history PATH: REASON`), else the
    exception's type and text."""
    message = getattr(err, "message", None)
    text = message if isinstance(message, str) and getattr(err, "code", None) else \
        f"{type(err).__name__}: {err}"
    return " ".join(text.split())

"""Start a session host detached from the terminal and wait until it is ready.

The host runs `python -m raw_tui.host` in a new session (`setsid`: no controlling terminal,
so a hang-up of ours never reaches it), stdin from /dev/null, stdout and stderr to a log file
under the state directory (`hosts/`, the newest `KEEP_LOGS` kept). It reports on a pipe when
its socket listens, or why it could not start.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..protocol import errors
from ..protocol.errors import HISTORY_ERROR, ConfigError, RawError
from ..paths import open_private, state_home

if TYPE_CHECKING:
    from ..session.request import SessionRequest

READY_TIMEOUT_S = 60.0  # loading the config and history, starting MCP servers
KEEP_LOGS = 20
SAMPLE_SESSION_ID = "s" + "0" * 11 + "0" * 6  # as long as a session id (`new_id`) is


@dataclass(frozen=True)
class Started:
    session_id: str
    socket: Path
    pid: int
    log: Path


class HostStartError(RawError):
    pass


def log_dir() -> Path:
    """`hosts/` under the state directory, 0700 (the logs are 0600: they quote transcripts)."""
    from ..paths import private_dir

    return private_dir(state_home() / "hosts")


def host_argv(request: SessionRequest) -> list[str]:
    argv = [sys.executable, "-m", "raw_tui.host", "--cwd", str(request.cwd)]
    for option, value in (("--config", request.config), ("--agent", request.agent),
                          ("--model", request.model), ("--resume", request.resume)):
        if value:
            argv += [option, str(value)]
    if request.continue_:
        argv.append("--continue")
    return argv


def start_host(request: SessionRequest, *, timeout: float = READY_TIMEOUT_S) -> Started:
    """Start a host for the session `request` names (new, --continue, --resume). Raises
    ConfigError (the config is wrong) or HostStartError (anything else, with the log)."""
    try:
        folder = log_dir()
    except OSError as err:  # the state folder (history, host logs) is a file, or unwritable
        raise HostStartError(HISTORY_ERROR, f"history {state_home() / 'history.sqlite3'}: "
                                            f"cannot use its folder {state_home()}: "
                                            f"{err.strerror or err}") from None
    _prune_logs(folder)
    from .paths import socket_path

    socket_path(SAMPLE_SESSION_ID)  # the socket directory refused here, before a process starts
    log_path = folder / f"host-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(open_private(log_path), "ab") as log, \
                open(os.devnull, "rb") as devnull:
            process = subprocess.Popen(
                [*host_argv(request), "--ready-fd", str(write_end)], stdin=devnull, stdout=log,
                stderr=subprocess.STDOUT, pass_fds=(write_end,), start_new_session=True,
                cwd=str(request.cwd), close_fds=True)
    finally:
        os.close(write_end)
    try:
        line = _read_line(read_end, timeout)
    finally:
        os.close(read_end)
    if not line:
        code = process.poll()
        if code is None:
            process.kill()
        raise HostStartError(errors.HOST_FAILED, f"the session host did not start "
                                            f"(exit {process.wait()}); see {log_path}")
    report = json.loads(line)
    if not report.get("ok"):
        process.wait()
        if report.get("code") == errors.HOST_CONFIG:
            raise _ConfigLine(report.get("message", ""))
        raise HostStartError(report.get("code") or errors.HOST_FAILED, report.get("message", ""))
    # reaped as soon as it ends (SIGTERM, Quit, idle), not left a zombie until we exit
    threading.Thread(target=process.wait, name=f"reap-host-{process.pid}", daemon=True).start()
    return Started(session_id=report["session_id"], socket=Path(report["socket"]),
                   pid=int(report["pid"]), log=log_path)


class _ConfigLine(ConfigError):
    """A config error the host already rendered as one line."""

    def line(self) -> str:
        return self.detail


def _read_line(fd: int, timeout: float) -> str:
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace").strip()


def _prune_logs(folder: Path) -> None:
    logs = sorted(folder.glob("host-*.log"), key=lambda p: p.stat().st_mtime)
    for old in logs[:-KEEP_LOGS]:
        try:
            old.unlink()
        except OSError:
            pass

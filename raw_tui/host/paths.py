"""Where host sockets live, and which of them are live.

`$XDG_RUNTIME_DIR/raw-tui/` when that directory exists, else `<state dir>/sockets/`; the
directory is `0700` and owned by us (anything else is refused, never loosened silently), each
socket is `<session id>.sock` with mode `0600`. A socket nobody listens on (a host that
crashed) is stale: `live_sessions()` and a starting host remove it.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
from pathlib import Path

import msgspec

from ..paths import state_home
from . import protocol

SUFFIX = ".sock"
PROBE_TIMEOUT_S = 2.0
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL


class SocketDirError(Exception):
    pass


def socket_dir(create: bool = True) -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        folder = Path(runtime) / "raw-tui"
    else:
        folder = state_home() / "sockets"
    if create:
        folder.parent.mkdir(parents=True, exist_ok=True)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            raise SocketDirError(f"{folder}: not a directory owned by uid {os.getuid()}")
        if stat.S_IMODE(info.st_mode) & 0o077:
            raise SocketDirError(f"{folder}: mode {stat.S_IMODE(info.st_mode):o}, must be 700")
    return folder


def socket_path(session_id: str) -> Path:
    path = socket_dir() / f"{session_id}{SUFFIX}"
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise SocketDirError(f"{path}: longer than a Unix socket path may be "
                             f"({MAX_SOCKET_PATH} bytes); set XDG_RUNTIME_DIR to a shorter one")
    return path


def probe(path: Path, timeout: float = PROBE_TIMEOUT_S) -> protocol.Status | None:
    """The status of the host behind `path`; None when nobody answers there. A socket that
    refuses connections is stale and removed."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(os.fspath(path))
    except OSError as err:
        sock.close()
        if err.errno in (errno.ECONNREFUSED, errno.ENOTSOCK):
            _unlink(path)
        return None
    try:
        sock.sendall(protocol.encode(protocol.Probe(version=protocol.PROTOCOL_VERSION)))
        data = b""
        while not data.endswith(b"\n") and len(data) < 65536:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        frame = protocol.decode_host(data.strip())
    except (OSError, msgspec.DecodeError):
        return None
    finally:
        sock.close()
    return frame if isinstance(frame, protocol.Status) else None


def live_sessions() -> dict[str, protocol.Status]:
    """Session id -> status of every live host of this user (stale sockets removed)."""
    folder = socket_dir(create=False)
    if not folder.is_dir():
        return {}
    out = {}
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        status = probe(path)
        if status is not None:
            out[status.session_id] = status
    return out


def clear_stale(path: Path) -> bool:
    """Before binding `path`: remove it when nobody listens there. False when a live host
    does (the caller must not start a second one)."""
    if not os.path.lexists(path):
        return True
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(os.fspath(path))
    except OSError:
        _unlink(path)
        return True
    finally:
        sock.close()
    return False


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass

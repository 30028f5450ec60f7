"""Where host sockets live, and which of them are live (docs/decisions.md).

The directory is `$XDG_RUNTIME_DIR/raw-tui/` when `$XDG_RUNTIME_DIR` is set and is a
directory of ours with mode `0700` (not a symlink), else `/tmp/raw-tui-<uid>/` (as tmux
does); never under the state directory, whose path may be longer than a socket path may be.
Before every use, listing included, the directory is checked with `lstat`: ours, `0700`, not
a symlink; anything else is refused (`SocketDirError`, one line), never loosened or followed.
Each socket is `<session id>.sock` with mode `0600`. A socket nobody listens on (a host that
crashed) is stale: `live_sessions()` and a starting host remove it, and nothing else: only a
socket of ours is ever unlinked there.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
from pathlib import Path

import msgspec

from ..errors import SOCKET_DIR_ERROR, RawError
from . import protocol

SUFFIX = ".sock"
PROBE_TIMEOUT_S = 2.0
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL
FALLBACK_ROOT = "/tmp"


class SocketDirError(RawError, OSError):
    """One line: which directory, and what is wrong with it. An OSError too, so a caller
    that only wants to know what is live (`sessions list`'s marks) goes on without."""

    def __init__(self, message: str) -> None:
        super().__init__(SOCKET_DIR_ERROR, f"socket directory {message}")


def _private_dir(path: str) -> bool:
    """`path` is a real directory (not a symlink) of ours with mode 0700."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and stat.S_IMODE(info.st_mode) == 0o700)


def socket_dir(create: bool = True) -> Path:
    """The checked directory (created when `create`). SocketDirError when it is not ours,
    not 0700 or a symlink; with `create` False, a directory that does not exist is returned
    unchecked (there is nothing in it to list)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and _private_dir(runtime):
        folder = Path(runtime) / "raw-tui"
    else:
        folder = Path(FALLBACK_ROOT) / f"raw-tui-{os.getuid()}"
    if create:
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        except OSError as err:
            raise SocketDirError(f"{folder}: {err.strerror or err}") from None
    elif not os.path.lexists(folder):
        return folder
    check_dir(folder)
    return folder


def check_dir(folder: Path) -> None:
    """lstat: a directory, not a symlink, owned by us, mode 0700 (else SocketDirError)."""
    try:
        info = os.lstat(folder)
    except OSError as err:
        raise SocketDirError(f"{folder}: {err.strerror or err}") from None
    if stat.S_ISLNK(info.st_mode):
        raise SocketDirError(f"{folder}: a symlink, not a directory")
    if not stat.S_ISDIR(info.st_mode):
        raise SocketDirError(f"{folder}: not a directory")
    if info.st_uid != os.getuid():
        raise SocketDirError(f"{folder}: owned by uid {info.st_uid}, not {os.getuid()}")
    if stat.S_IMODE(info.st_mode) != 0o700:
        raise SocketDirError(f"{folder}: mode {stat.S_IMODE(info.st_mode):o}, must be 700")


def socket_path(session_id: str) -> Path:
    path = socket_dir() / f"{session_id}{SUFFIX}"
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise SocketDirError(f"{path.parent}: too long for a socket path ({MAX_SOCKET_PATH} "
                             f"bytes); set XDG_RUNTIME_DIR to a shorter one")
    return path


def ours(path: Path) -> bool:
    """`path` is a socket (not a symlink, not a file) owned by us."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISSOCK(info.st_mode) and info.st_uid == os.getuid()


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
    """Session id -> status of every live host of this user (stale sockets removed).
    SocketDirError when the directory is not safe to look in."""
    folder = socket_dir(create=False)
    if not os.path.lexists(folder):
        return {}
    out = {}
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        if not ours(path):
            continue
        status = probe(path)
        if status is not None and status.session_id == path.name[:-len(SUFFIX)]:
            out[status.session_id] = status  # a host answers for its own socket only
    return out


def clear_stale(path: Path) -> bool:
    """Before binding `path`: remove it when nobody listens there. False when a live host
    does (the caller must not start a second one)."""
    if not os.path.lexists(path):
        return True
    if not ours(path):
        raise SocketDirError(f"{path.parent}: {path.name} is not a socket of ours")
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
    """Remove a stale socket: only a socket of ours, never a file or a link put there."""
    if not ours(path):
        return
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass

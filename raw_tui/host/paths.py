"""Where host sockets live, and which of them are live (docs/decisions.md).

The directory is `$XDG_RUNTIME_DIR/raw-tui/` when `$XDG_RUNTIME_DIR` is set and is a
directory of ours with mode `0700` (not a symlink), else `/tmp/raw-tui-<uid>/` (as tmux
does); never under the state directory, whose path may be longer than a socket path may be.
Before every use, listing included, the directory is checked with `lstat`: ours, `0700`, not
a symlink; anything else is refused (`SocketDirError`, one line), never loosened or followed.
Each socket is `<session id>.sock` with mode `0600`. A socket nobody listens on (a host that
crashed) is stale: `live_sessions()` and a starting host remove it, and nothing else: only a
socket of ours is ever unlinked there.

A host binds its socket itself (`bind_socket`), under an exclusive lock on the directory's
`.lock` file that every removal of a stale socket takes too: the check that nobody listens
on the path, the removal of a stale one, the bind and the listen are one step for everyone
else, so a live host's socket is never replaced (two hosts started at once for one session:
the second is refused, naming the live one) and a socket bound a moment ago is never taken
for stale. On stop a host removes the path only while it is still the socket it bound
(`release_socket`: same device and inode).
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import msgspec

from ..protocol.errors import SESSION_LIVE, SOCKET_DIR_ERROR, RawError
from . import protocol

SUFFIX = ".sock"
PROBE_TIMEOUT_S = 2.0
LOCK_NAME = ".lock"  # not `*.sock`: never listed as a session
LOCK_TIMEOUT_S = 10.0  # held for a bind or a stale socket's removal: milliseconds, or a probe
LISTEN_BACKLOG = 100
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL
FALLBACK_ROOT = "/tmp"


class SessionLive(RawError):
    """A host already listens on the session's socket."""

    def __init__(self, session_id: str, path: Path, pid: int | None) -> None:
        who = f"its host (pid {pid})" if pid else "another host"
        super().__init__(SESSION_LIVE, f"session {session_id} is live: {who} listens on "
                                       f"{path}; raw-tui attach {session_id}")
        self.pid = pid


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


def probe(path: Path, timeout: float = PROBE_TIMEOUT_S, *,
          clean: bool = True) -> protocol.Status | None:
    """The status of the host behind `path`; None when nobody answers there. A socket that
    refuses connections is stale and removed (when `clean`)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(os.fspath(path))
    except OSError as err:
        sock.close()
        if clean and err.errno in (errno.ECONNREFUSED, errno.ENOTSOCK):
            _remove_stale(path)
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
    """Remove `path` when nobody listens there. False when a live host does (the caller
    must not start a second one)."""
    if not os.path.lexists(path):
        return True
    if not ours(path):
        raise SocketDirError(f"{path.parent}: {path.name} is not a socket of ours")
    return _remove_stale(path)


@dataclass(frozen=True)
class Bound:
    """A listening socket a host bound at `path`, and the inode it has there."""

    sock: socket.socket
    path: Path
    inode: tuple[int, int]  # st_dev, st_ino


def bind_socket(path: Path) -> Bound:
    """Bind and listen on `path` (mode 0600), never over a live host's socket: a stale one
    is removed first, all under the directory's lock. SessionLive when a host listens there
    (naming its pid when it answers a probe); SocketDirError when the path is not a socket
    of ours or the directory is refused."""
    session_id = path.name.removesuffix(SUFFIX)
    check_dir(path.parent)
    with _locked(path.parent):
        if os.path.lexists(path):
            if not ours(path):
                raise SocketDirError(f"{path.parent}: {path.name} is not a socket of ours")
            if _listening(path):
                status = probe(path, clean=False)  # the lock is ours already
                raise SessionLive(session_id, path, status.pid if status else None)
            _unlink(path)  # stale: its host is gone
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old = os.umask(0o177)
            try:
                sock.bind(os.fspath(path))
            finally:
                os.umask(old)
            os.chmod(path, 0o600)
            sock.listen(LISTEN_BACKLOG)
            info = os.lstat(path)
        except OSError as err:
            sock.close()
            if err.errno == errno.EADDRINUSE:  # bound meanwhile by a raw-tui without the lock
                raise SessionLive(session_id, path, None) from None
            raise
        sock.setblocking(False)
        return Bound(sock, path, (info.st_dev, info.st_ino))


def release_socket(bound: Bound) -> None:
    """Remove `bound.path` if it is still the socket we bound there (not a later host's)."""
    try:
        with _locked(bound.path.parent):
            try:
                info = os.lstat(bound.path)
            except FileNotFoundError:
                return
            if (info.st_dev, info.st_ino) == bound.inode:
                _unlink(bound.path)
    except OSError:
        pass  # the directory went away or was refused: nothing of ours to remove there


def _listening(path: Path) -> bool:
    """Somebody listens on `path`: a connection is accepted, or waits (a full backlog)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(PROBE_TIMEOUT_S)
    try:
        sock.connect(os.fspath(path))
    except OSError as err:
        return err.errno not in (errno.ECONNREFUSED, errno.ENOTSOCK, errno.ENOENT)
    finally:
        sock.close()
    return True


def _remove_stale(path: Path) -> bool:
    """Under the lock: remove `path` when nobody listens there (a host bound a moment ago
    holds the lock until it listens). False when somebody does."""
    try:
        with _locked(path.parent):
            if not os.path.lexists(path):
                return True
            if _listening(path):
                return False
            _unlink(path)
            return True
    except SocketDirError:
        return not os.path.lexists(path)


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """The directory's exclusive lock (a 0600 file of ours, never followed if a link);
    SocketDirError when it cannot be had within LOCK_TIMEOUT_S."""
    lock = folder / LOCK_NAME
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as err:
        raise SocketDirError(f"{folder}: {LOCK_NAME}: {err.strerror or err}") from None
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SocketDirError(f"{folder}: {LOCK_NAME} held by another process "
                                         f"for over {LOCK_TIMEOUT_S:g} s") from None
                time.sleep(0.005)
        yield
    finally:
        os.close(fd)


def _unlink(path: Path) -> None:
    """Remove a stale socket: only a socket of ours, never a file or a link put there."""
    if not ours(path):
        return
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass

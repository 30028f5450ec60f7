"""A path's state as a checkpoint records it: a JSON-able dict.

`{"kind": "absent"}`, `{"kind": "dir", "mode"}`, `{"kind": "symlink", "target"}`, or
`{"kind": "file", "mode", "size", "sha", "mtime", "ino", "ctime"}` (`sha`: the content's
digest, see `digest`; a recorded previous state adds `chunks`, the chunk ids its content is
stored as). The state raw-tui left a file in (`left`) has no `sha`: its inode, size and
times say whether it changed since (as git's index does), without reading it again. A path
is never followed: a symlink is recorded as one. Other kinds (fifo, socket, device) are
recorded as `{"kind": "other"}` and never restored.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import Any, Callable

State = dict[str, Any]
ABSENT: State = {"kind": "absent"}


def read_bytes(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        parts = []
        size = max(os.fstat(fd).st_size, 1 << 14)
        while True:  # a small file in one read; a growing one read to its end
            data = os.read(fd, size + 1)
            if not data:
                return b"".join(parts)
            parts.append(data)
    finally:
        os.close(fd)


def digest(chunk_ids: list[str]) -> str:
    """A content's digest from its chunks' SHA-256: the chunk's own for one chunk, else the
    SHA-256 of their concatenation (each byte is hashed once)."""
    if len(chunk_ids) == 1:
        return chunk_ids[0]
    return hashlib.sha256("".join(chunk_ids).encode()).hexdigest()


def chunk_ids(data: bytes) -> list[str]:
    from .chunks import cut

    view = memoryview(data)
    return [hashlib.sha256(view[a:b]).hexdigest() for a, b in cut(data)]


def of(path: str, store: Callable[[bytes], list[Any]] | None = None, *,
       left: bool = False, raw: bool = False) -> State:
    """The state of `path` now; `store(content)` (the chunk ids) records a file's content;
    `left`: without reading the content (the state raw-tui just left it in); `raw`: `store`
    copies the content as it is and returns where (`raw`), hashed later (store.py)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return dict(ABSENT)
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISDIR(st.st_mode):
        return {"kind": "dir", "mode": mode}
    if stat.S_ISLNK(st.st_mode):
        return {"kind": "symlink", "target": os.readlink(path)}
    if not stat.S_ISREG(st.st_mode):
        return {"kind": "other"}
    out: State = {"kind": "file", "mode": mode, "size": st.st_size, "mtime": st.st_mtime_ns,
                  "ino": st.st_ino, "ctime": st.st_ctime_ns}
    if left:
        return out
    data = read_bytes(path)
    if raw and store is not None:
        out["size"], out["raw"] = len(data), store(data)
        return out
    ids = store(data) if store is not None else chunk_ids(data)
    out["size"], out["sha"] = len(data), digest(ids)
    if store is not None:
        out["chunks"] = ids
    return out


def same(a: State | None, b: State | None) -> bool:
    """The same kind, mode and content (or target); times aside."""
    if a is None or b is None:
        return a is b
    if a["kind"] != b["kind"]:
        return False
    kind = a["kind"]
    if kind == "file":
        if a["mode"] != b["mode"]:
            return False
        if "sha" in a and "sha" in b:
            return a["sha"] == b["sha"]
        return all(a.get(k) == b.get(k) for k in ("ino", "size", "mtime", "ctime"))
    if kind == "dir":
        return a["mode"] == b["mode"]
    if kind == "symlink":
        return a["target"] == b["target"]
    return True


def subtree(path: str) -> list[str]:
    """Every path below a directory (not following symlinks), parents first."""
    out: list[str] = []
    try:
        with os.scandir(path) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return out
    for entry in entries:
        out.append(entry.path)
        if entry.is_dir(follow_symlinks=False):
            out += subtree(entry.path)
    return out


def absent_parents(path: str, stop: str) -> list[str]:
    """The folders above `path` (up to `stop`, excluded) that do not exist: a write would
    create them. Outermost first."""
    out: list[str] = []
    parent = os.path.dirname(path)
    while parent and parent != stop and parent != os.path.dirname(parent) \
            and not os.path.lexists(parent):
        out.append(parent)
        parent = os.path.dirname(parent)
    return list(reversed(out))

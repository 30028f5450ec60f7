"""A hook folder's bytes, read once at load, and their materialisation for the runner.

Limits (docs/hooks.md): at most 256 regular files and 16 MiB in total, no symbolic link
anywhere (the folder itself included), nothing but directories and regular files, and
`hook.json` at most 64 KiB; and (where the contract is silent) at most 256 folders, nested at most 16
deep. A turn runs the snapshot it started with: the runner writes the
snapshot into a private temporary directory (once per loaded version) and runs from there.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 256
MAX_TOTAL_BYTES = 16 * 1024 * 1024
MAX_MANIFEST_BYTES = 64 * 1024
MAX_DIRS = 256
MAX_DEPTH = 16  # folders inside the hook folder
MANIFEST = "hook.json"


class FolderError(ValueError):
    """The folder breaks a limit; `str()` names the offending path."""


@dataclass(frozen=True)
class SnapshotFile:
    data: bytes
    mode: int  # permission bits (executable bits are kept)


@dataclass
class FolderSnapshot:
    """Every regular file of a hook folder, keyed by its POSIX path relative to the folder."""

    source: Path
    files: dict[str, SnapshotFile]
    dirs: tuple[str, ...] = ()
    _materialized: Path | None = field(default=None, repr=False)

    @property
    def digest(self) -> str:
        """A hash of names, modes and bytes: equal digests mean the same hook version."""
        import hashlib  # not at start-up: `config list` never needs it

        h = hashlib.sha256()
        for rel in sorted(self.files):
            entry = self.files[rel]
            h.update(f"{rel}\0{entry.mode}\0{len(entry.data)}\0".encode())
            h.update(entry.data)
        return h.hexdigest()

    def materialize(self, name: str) -> Path:
        """Write the snapshot into a private temp dir once; return the hook's folder there."""
        if self._materialized is not None and self._materialized.is_dir():
            return self._materialized
        import tempfile  # not at start-up: `config list` never runs a hook

        root = Path(tempfile.mkdtemp(prefix="raw-tui-hook-"))
        _remember(root)
        folder = root / name
        folder.mkdir()
        for rel in self.dirs:
            (folder / rel).mkdir(parents=True, exist_ok=True)
        for rel, entry in self.files.items():
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(entry.data)
            os.chmod(target, entry.mode)
        self._materialized = folder
        return folder

    def close(self) -> None:
        """Remove the materialised copy, if any (the snapshot's bytes stay usable)."""
        if self._materialized is not None:
            root = self._materialized.parent
            shutil.rmtree(root, ignore_errors=True)
            _LIVE_ROOTS.discard(root)
            self._materialized = None


# Materialised copies not closed by their owner are removed when the process exits.
_LIVE_ROOTS: set[Path] = set()
_REGISTERED = False


def _remember(root: Path) -> None:
    global _REGISTERED
    if not _REGISTERED:
        atexit.register(_remove_live_roots)
        _REGISTERED = True
    _LIVE_ROOTS.add(root)


def _remove_live_roots() -> None:
    for root in list(_LIVE_ROOTS):
        shutil.rmtree(root, ignore_errors=True)
    _LIVE_ROOTS.clear()


def take_snapshot(folder: Path, *, display: str) -> FolderSnapshot:
    """Read every file of `folder` into memory, enforcing the limits.

    `display` is how errors name the folder (e.g. `hooks/guard`). Raises FolderError.
    """
    if folder.is_symlink():
        raise FolderError(f"symbolic links are not allowed: {display}")
    if not folder.is_dir():
        raise FolderError(f"not a folder: {display}")
    files: dict[str, SnapshotFile] = {}
    dirs: list[str] = []
    total = 0
    for rel, st in _walk(folder, display):
        if stat.S_ISDIR(st.st_mode):
            dirs.append(rel)
            continue
        if len(files) >= MAX_FILES:
            raise FolderError(f"more than {MAX_FILES} files in {display}")
        total += st.st_size
        if total > MAX_TOTAL_BYTES:
            raise FolderError(f"more than {MAX_TOTAL_BYTES // (1024 * 1024)} MiB in {display}")
        if rel == MANIFEST and st.st_size > MAX_MANIFEST_BYTES:
            raise FolderError(f"{display}/{MANIFEST} is larger than {MAX_MANIFEST_BYTES // 1024} KiB")
        files[rel] = SnapshotFile(_read(folder / rel, st, display, rel), stat.S_IMODE(st.st_mode))
    return FolderSnapshot(folder, files, tuple(dirs))


def _walk(folder: Path, display: str):
    """Yield (relative path, lstat) for every entry below `folder` in sorted depth-first
    order, refusing links and specials, more than MAX_DIRS folders and folders nested deeper
    than MAX_DEPTH. A stack, not recursion: a hostile depth is one clean error."""
    stack: list[tuple[Path, str]] = [(folder, "")]
    dirs = 0
    while stack:
        path, prefix = stack.pop()
        if prefix.count("/") > MAX_DEPTH:
            raise FolderError(f"folders nested deeper than {MAX_DEPTH} levels in {display}")
        try:
            with os.scandir(path) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            raise FolderError(f"cannot read {display}/{prefix}: {exc.strerror}") from None
        below = []
        for entry in entries:
            rel = f"{prefix}{entry.name}"
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                raise FolderError(f"symbolic links are not allowed: {display}/{rel}")
            if stat.S_ISDIR(st.st_mode):
                dirs += 1
                if dirs > MAX_DIRS:
                    raise FolderError(f"more than {MAX_DIRS} folders in {display}")
                yield rel, st
                below.append((Path(entry.path), f"{rel}/"))
            elif stat.S_ISREG(st.st_mode):
                yield rel, st
            else:
                raise FolderError(f"not a regular file: {display}/{rel}")
        stack.extend(reversed(below))


def _read(path: Path, st: os.stat_result, display: str, rel: str) -> bytes:
    """Read a file without following a link swapped in since the walk; the size must hold."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FolderError(f"cannot read {display}/{rel}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(st.st_size + 1)
    if len(data) != st.st_size:
        raise FolderError(f"{display}/{rel} changed while it was read")
    return data

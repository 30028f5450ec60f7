"""Atomic file writes: a temp file in the same directory, fsync, `os.replace`.

A failure at any point leaves the old file whole and no temp file behind. `stage_write`
splits the write in two so that several files can be prepared first and replaced together
(`commit_all`): if any preparation fails, nothing on disk has changed.

Modes: a file that exists keeps its permission bits; a new file gets `0o666 & ~umask`
(what `open()` would give it), unless `mode` is given.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass


@dataclass
class StagedWrite:
    """A temp file holding the new content of `path`, ready to take its place."""

    path: str
    temp: str

    def commit(self) -> None:
        try:
            os.replace(self.temp, self.path)
        except BaseException:
            self.discard()
            raise
        fsync_dir(os.path.dirname(self.path) or ".")

    def discard(self) -> None:
        try:
            os.unlink(self.temp)
        except FileNotFoundError:
            pass


def current_umask() -> int:
    """The process umask, read without changing it where /proc allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def mode_for(path: str, mode: int | None) -> int:
    if mode is not None:
        return mode
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~current_umask()


def stage_write(path: str, data: bytes, mode: int | None = None) -> StagedWrite:
    """Write `data` to a temp file beside `path` and fsync it. Raises OSError; on failure the
    temp file is removed."""
    directory = os.path.dirname(path) or "."
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.",
                                suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temp, mode_for(path, mode))
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
    return StagedWrite(path, temp)


def commit_all(staged: list[StagedWrite]) -> None:
    """Put every staged file in place, in order. If one fails, the ones not yet in place are
    discarded and the error is raised (files already replaced stay replaced)."""
    for i, item in enumerate(staged):
        try:
            item.commit()
        except BaseException:
            discard_all(staged[i + 1:])
            raise


def discard_all(staged: list[StagedWrite]) -> None:
    for item in staged:
        item.discard()


def fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

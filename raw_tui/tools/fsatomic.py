"""Atomic file writes: a temp file in the same directory, fsync, `os.replace`.

A failure at any point leaves the old file whole and no temp file behind. `stage_write`
splits the write in two so that several files can be prepared first and replaced together
(`commit_all`): if any preparation fails, nothing on disk has changed.

Modes: a file that exists keeps its permission bits; a new file gets `0o666 & ~umask`
(what `open()` would give it), unless `mode` is given.

Temp files are named `.NAME.raw-tui-WHERE-PID-START.XXXXXXXX.tmp`: WHERE 8 hex digits naming
this boot of this machine and this pid namespace (a CRC of the kernel's boot id and the
namespace's inode), PID and START the writing process and its start time (clock ticks since
boot, from /proc: a reused pid has another). A process killed mid-write (`kill -9`) leaves
its temp file; the next write to that directory removes every one whose writer is gone
(`sweep_stale`): ours by name, a regular file owned by this user, written from the same
WHERE by a process that no longer runs (from another WHERE, whose processes cannot be seen
from here: untouched for a day). A live writer's temp file (another raw-tui writing at the
same time) and anyone else's file are never touched.
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
import zlib
from dataclasses import dataclass
from functools import cache

MARK = "raw-tui-"
SUFFIX = ".tmp"
MAX_NAME_IN_TEMP = 96  # of the target's name, so that the temp's name fits NAME_MAX (255)
FOREIGN_BOOT_STALE_S = 24 * 3600


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


@cache
def boot_id() -> str:
    """WHERE: this boot of this machine, and this pid namespace (8 hex digits)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot = f.read().strip()
    except OSError:
        boot = os.uname().nodename
    try:
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        namespace = ""
    return f"{zlib.crc32(f'{boot}:{namespace}'.encode()):08x}"


def start_time(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot); None when it does not run. 0
    where /proc cannot say (then a running pid counts as the writer)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[19])  # field 22 of stat(5); fields[0] is field 3
    except FileNotFoundError:
        return None
    except (OSError, ValueError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:
        pass
    return 0


@cache
def _writer(pid: int) -> str:
    return f"{MARK}{boot_id()}-{pid}-{start_time(pid) or 0}"


def writer_token() -> str:
    """`raw-tui-BOOT-PID-START` of this process (cached per pid: a fork gets its own)."""
    return _writer(os.getpid())


def temp_prefix(path: str) -> str:
    return f".{os.path.basename(path)[:MAX_NAME_IN_TEMP]}.{writer_token()}."


def parse_writer(name: str) -> tuple[str, int, int] | None:
    """(boot, pid, start) of a temp file name of ours, else None."""
    if not (name.startswith(".") and name.endswith(SUFFIX)):
        return None
    parts = name[:-len(SUFFIX)].rsplit(".", 2)
    if len(parts) != 3 or not parts[1].startswith(MARK):
        return None
    fields = parts[1][len(MARK):].split("-")
    if len(fields) != 3 or not (fields[1].isdigit() and fields[2].isdigit()):
        return None
    return fields[0], int(fields[1]), int(fields[2])


def writer_gone(boot: str, pid: int, start: int, mtime: float) -> bool:
    if boot != boot_id():
        return time.time() - mtime > FOREIGN_BOOT_STALE_S
    now = start_time(pid)
    return now is None or (start != 0 and now not in (0, start))


def sweep_stale(directory: str) -> list[str]:
    """Remove the temp files of ours in `directory` whose writer is gone; the paths removed.
    Never raises."""
    removed = []
    try:
        entries = os.scandir(directory)
    except OSError:
        return removed
    uid = os.getuid()
    with entries:
        for entry in entries:
            found = parse_writer(entry.name)
            if found is None:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if not stat.S_ISREG(info.st_mode) or info.st_uid != uid \
                        or not writer_gone(*found, info.st_mtime):
                    continue
                os.unlink(entry.path)
                removed.append(entry.path)
            except OSError:
                continue
    return removed


def stage_write(path: str, data: bytes, mode: int | None = None) -> StagedWrite:
    """Write `data` to a temp file beside `path` and fsync it. Raises OSError; on failure the
    temp file is removed. Stale temp files of killed writers in that directory go first."""
    directory = os.path.dirname(path) or "."
    sweep_stale(directory)
    fd, temp = tempfile.mkstemp(dir=directory, prefix=temp_prefix(path), suffix=SUFFIX)
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

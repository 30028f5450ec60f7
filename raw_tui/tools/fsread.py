"""Bounded reads of a user's file that never block and never balloon.

`read_regular(path, max_bytes)` refuses anything that is not a regular file (a FIFO, a device,
a socket, a directory) before reading it: the path is checked with `stat` first (so a device
is never even opened: opening one can have effects), opened with `O_NONBLOCK` (a FIFO that
appears in between cannot block the open), checked again with `fstat` on the opened file
descriptor, and read up to `max_bytes` (a file that grows past the bound while it is read is
refused too). Every refusal is a `RawError` with code `tool_error` and a one-line message
naming the path.
"""

from __future__ import annotations

import os
import stat

from ..protocol.errors import TOOL_ERROR, RawError

KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR,
         "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind_of(mode: int) -> str:
    for test, name in KINDS:
        if test(mode):
            return name
    return "not a regular file"


def check_regular(path: str, info: os.stat_result, max_bytes: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise RawError(TOOL_ERROR, f"{path} is {kind_of(info.st_mode)}, not a regular file")
    if info.st_size > max_bytes:
        raise RawError(TOOL_ERROR, f"{path} is {info.st_size} bytes; at most {max_bytes} "
                                   "can be read")


def regular_or_missing(path: str) -> bool:
    """True when `path` is a regular file, False when nothing is there (checked with `stat`,
    nothing opened). Raises RawError (tool_error) for anything else."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as err:
        raise RawError(TOOL_ERROR, f"cannot use {path}: {err.strerror or err}") from None
    check_regular(path, info, info.st_size)
    return True


def read_regular(path: str, max_bytes: int) -> bytes | None:
    """The bytes of the regular file at `path` (symbolic links followed), or None when nothing
    is there. Raises RawError (tool_error) for anything else."""
    try:
        check_regular(path, os.stat(path), max_bytes)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise RawError(TOOL_ERROR, f"cannot read {path}: {err.strerror or err}") from None
    try:
        check_regular(path, os.fstat(fd), max_bytes)  # the file opened is the file checked
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise RawError(TOOL_ERROR, f"{path} grew past {max_bytes} bytes while it was read")
        return b"".join(chunks)
    except OSError as err:
        raise RawError(TOOL_ERROR, f"cannot read {path}: {err.strerror or err}") from None
    finally:
        os.close(fd)

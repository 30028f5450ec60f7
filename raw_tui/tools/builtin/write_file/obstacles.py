"""What write_file refuses to write through or over: a symbolic link or a non-directory on
the way to a path, two names of one file in one call, anything already where a patch makes a
new file. Checked when a call is planned (planning.py) and again just before it is written
(commit.py).
"""

from __future__ import annotations

import os
from typing import Any

from raw_tui.protocol.errors import PATCH_DESTINATION_EXISTS, PATCH_PREFLIGHT_FAILED, RawError
from raw_tui.tools import fslinks


def refuse_obstacles(path: str, cwd: str, code: str) -> None:
    found = fslinks.obstacle(path, cwd)
    if found is None:
        return
    reason, where, detail = found
    if reason == fslinks.SYMLINK:
        raise RawError(code, f"{reason}: {where} is a symbolic link (to {detail}); write_file "
                             "does not write through links: name the path it points to")
    raise RawError(code, f"{reason}: cannot write {path}: {where} is {detail}")


def file_key(path: str) -> tuple[Any, ...]:
    """What identifies the file at `path`: its device and inode when it exists, else the path
    with every symbolic link resolved."""
    try:
        info = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path))
    return ("inode", info.st_dev, info.st_ino)


def refuse_existing(path: str, detail: str) -> None:
    """A patch's Add File and Move to make a new file: anything already at `path` (a file, a
    directory, a link) is refused, as Raw's `patch_destination_exists`."""
    if os.path.lexists(path):
        raise RawError(PATCH_PREFLIGHT_FAILED, f"{PATCH_DESTINATION_EXISTS}: {detail}")

"""XDG locations (platformdirs honours $XDG_CONFIG_HOME and $XDG_STATE_HOME), and state files
only their user may read: history, logs and every other state file are 0600 in 0700
directories, from the state directory down (docs/decisions.md)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import platformdirs

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def config_home() -> Path:
    return Path(platformdirs.user_config_dir("raw", appauthor=False))


def cache_home() -> Path:
    return Path(platformdirs.user_cache_dir("raw-tui", appauthor=False))


def state_home() -> Path:
    return Path(platformdirs.user_state_dir("raw-tui", appauthor=False))


def private_dir(folder: Path) -> Path:
    """`folder` as a directory only we may enter: every directory from the state directory
    down to it (or `folder` alone, when it lies elsewhere) created 0700, and one of ours
    that others may enter tightened to 0700. Raises OSError (a file in the way, no rights)."""
    root = state_home()
    try:
        parts = folder.relative_to(root).parts
        chain = [root] + [root.joinpath(*parts[:i + 1]) for i in range(len(parts))]
    except ValueError:
        chain = [folder]
    for step in chain:
        try:
            step.mkdir(mode=PRIVATE_DIR_MODE, parents=True)
        except FileExistsError:
            pass
        info = os.stat(step)
        if not stat.S_ISDIR(info.st_mode):
            raise NotADirectoryError(20, "Not a directory", str(step))
        if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(step, stat.S_IMODE(info.st_mode) & PRIVATE_DIR_MODE)
    return folder


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_APPEND) -> int:
    """A state file's descriptor: created 0600 in a private directory (`private_dir`), and
    one of ours that others may read tightened to 0600."""
    private_dir(path.parent)
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    try:
        info = os.fstat(fd)
        if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(fd, stat.S_IMODE(info.st_mode) & PRIVATE_FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd

"""Where a path a tool writes would leave its lexical self: a symbolic link, or a component
that is not a directory, on the way to it.

Effects are lexical (the policy sees `/work/linked/file`, never the directory `linked`
points to), so a write that passed through a link would land where no rule looked. Raw's
patch form refuses every such path (`patch_symlink_path`); `write_file` here refuses it in
every form. Only `lstat` is used: nothing is opened or followed.

The working directory and its ancestors are not checked: the user chose them (a `--cwd`
given through a link is still the user's workspace); every component the tool's path adds
below them, and every component of a path outside them, is.
"""

from __future__ import annotations

import os
import stat

from ..protocol import errors

SYMLINK = errors.PATCH_SYMLINK_PATH
NOT_DIRECTORY = errors.PATCH_PARENT_NOT_DIRECTORY


def chosen(cwd: str) -> set[str]:
    """The working directory and each of its ancestors, lexically."""
    out, here = set(), os.path.normpath(cwd)
    while True:
        out.add(here)
        parent = os.path.dirname(here)
        if parent == here:
            return out
        here = parent


def obstacle(path: str, cwd: str) -> tuple[str, str, str] | None:
    """`(reason, component, detail)` for the first component of the lexical `path`
    (itself included) that is a symbolic link (`patch_symlink_path`, detail: where it
    points) or, short of the last, exists and is not a directory
    (`patch_parent_not_directory`); None when there is none. A component that does not exist
    ends the walk: what is below it will be created."""
    skip = chosen(cwd)
    parts = path.split(os.sep)
    for i in range(2 if parts[0] == "" else 1, len(parts) + 1):
        prefix = os.sep.join(parts[:i])
        if prefix in skip:
            continue
        try:
            info = os.lstat(prefix)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            return NOT_DIRECTORY, prefix, err.strerror or str(err)
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(prefix)
            except OSError:
                target = "?"
            return SYMLINK, prefix, target
        if i < len(parts) and not stat.S_ISDIR(info.st_mode):
            return NOT_DIRECTORY, prefix, "not a directory"
    return None

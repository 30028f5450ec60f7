"""Commit an overlay's upper layer to the workspace (docs/sandbox.md, "Commit"): all checks
first, then every step.

- The state the layer was read against (`baseline`: kind, mode, inode, size, mtime and ctime
  of every path the commit depends on) is compared with the workspace now; any difference
  and nothing is committed (`sandbox_conflict`, naming the paths).
- Every path is reached through directory descriptors opened without following symbolic
  links: a symlink in the workspace is replaced or removed, never followed.
- Modes, symlink targets and modification times are kept; files that are hard links of one
  another in the layer are linked again; a changed file whose workspace file has other hard
  links is written in place, so every link sees the change (as a direct run's `>>` would).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from typing import Iterable

from ...protocol.errors import SANDBOX_CONFLICT, SANDBOX_UNSUPPORTED
from .layer import LayerRefused, Scan

Baseline = dict[str, tuple | None]
O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _state(path: str) -> tuple | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        return ("error", err.errno)
    return (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_ino, st.st_size,
            st.st_mtime_ns, st.st_ctime_ns)


def baseline(s: Scan) -> Baseline:
    """The workspace state of every path the commit depends on (and their parents)."""
    rels: set[str] = set()
    for rel in s.watched:
        rels.add(rel)
        parent = os.path.dirname(rel)
        while parent:
            rels.add(parent)
            parent = os.path.dirname(parent)
    return {rel: _state(os.path.join(s.workspace, rel)) for rel in sorted(rels)}


def conflicts(s: Scan, base: Baseline) -> list[str]:
    return [os.path.join(s.workspace, rel) for rel, was in base.items()
            if _state(os.path.join(s.workspace, rel)) != was]


class _Tree:
    """Directory descriptors of the workspace, opened without following symlinks."""

    def __init__(self, root: str) -> None:
        self.fds: dict[str, int] = {"": os.open(root, O_DIR)}

    def dir(self, rel: str) -> int:
        fd = self.fds.get(rel)
        if fd is None:
            parent = self.dir(os.path.dirname(rel))
            try:
                fd = os.open(os.path.basename(rel), O_DIR, dir_fd=parent)
            except OSError as err:
                if err.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise LayerRefused(SANDBOX_UNSUPPORTED,
                                       f"{rel}: not a directory in the workspace (a symlink "
                                       "is never followed)") from None
                raise
            self.fds[rel] = fd
        return fd

    def parent(self, rel: str) -> tuple[int, str]:
        return self.dir(os.path.dirname(rel)), os.path.basename(rel)

    def forget(self, rel: str) -> None:
        for key in [k for k in self.fds if k == rel or k.startswith(rel + "/")]:
            os.close(self.fds.pop(key))

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds.clear()


def _remove(tree: _Tree, rel: str) -> None:
    fd, name = tree.parent(rel)
    try:
        st = os.lstat(name, dir_fd=fd)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        tree.forget(rel)
        shutil.rmtree(name, dir_fd=fd)
    else:
        os.unlink(name, dir_fd=fd)


def _times(source_st: os.stat_result, fd: int, name: str) -> None:
    try:
        os.utime(name, ns=(source_st.st_atime_ns, source_st.st_mtime_ns), dir_fd=fd,
                 follow_symlinks=False)
    except OSError:
        pass


def _copy_into(source: str, out_fd: int) -> None:
    with open(source, "rb") as src:
        while True:
            chunk = src.read(1 << 20)
            if not chunk:
                break
            view = memoryview(chunk)
            while view:
                view = view[os.write(out_fd, view):]


def _write_file(tree: _Tree, rel: str, source: str, linked: dict[tuple, str]) -> None:
    fd, name = tree.parent(rel)
    st = os.lstat(source)
    key = (st.st_dev, st.st_ino)
    if st.st_nlink > 1 and key in linked:  # linked in the layer: link again
        first_fd, first_name = tree.parent(linked[key])
        _remove(tree, rel)
        os.link(first_name, name, src_dir_fd=first_fd, dst_dir_fd=fd, follow_symlinks=False)
        return
    if st.st_nlink > 1:
        linked[key] = rel
    try:
        below = os.lstat(name, dir_fd=fd)
    except FileNotFoundError:
        below = None
    mode = stat.S_IMODE(st.st_mode)
    if below is not None and stat.S_ISREG(below.st_mode) and below.st_nlink > 1 \
            and st.st_nlink == 1:
        out = os.open(name, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                      dir_fd=fd)
        try:
            _copy_into(source, out)
            os.fchmod(out, mode)
        finally:
            os.close(out)
        _times(st, fd, name)
        return
    temp = f".{name[:200]}.raw-tui-commit.{os.getpid()}.tmp"
    out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                  0o600, dir_fd=fd)
    try:
        try:
            _copy_into(source, out)
            os.fchmod(out, mode)
        finally:
            os.close(out)
        _times(st, fd, temp)
        if below is not None and stat.S_ISDIR(below.st_mode):
            _remove(tree, rel)
        os.rename(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=fd)
        except OSError:
            pass
        raise


def apply(s: Scan) -> None:
    """Every step of the layer, parents first. Directory modes and times are set last."""
    tree = _Tree(s.workspace)
    linked: dict[tuple, str] = {}
    dirs: list[tuple[str, os.stat_result]] = []
    try:
        for step in s.steps:
            if step.action == "delete":
                _remove(tree, step.rel)
            elif step.action == "dir":
                fd, name = tree.parent(step.rel)
                st = os.lstat(step.source)
                try:
                    below = os.lstat(name, dir_fd=fd)
                except FileNotFoundError:
                    below = None
                if below is not None and not stat.S_ISDIR(below.st_mode):
                    _remove(tree, step.rel)
                    below = None
                if below is None:
                    os.mkdir(name, 0o700, dir_fd=fd)
                dirs.append((step.rel, st))
            elif step.action == "clear":
                fd = tree.dir(step.rel)
                for child in sorted(set(os.listdir(fd)) - set(step.keep)):
                    _remove(tree, os.path.join(step.rel, child))
            elif step.action == "symlink":
                fd, name = tree.parent(step.rel)
                _remove(tree, step.rel)
                os.symlink(os.readlink(step.source), name, dir_fd=fd)
                _times(os.lstat(step.source), fd, name)
            elif step.action == "file":
                _write_file(tree, step.rel, step.source, linked)
        for rel, st in reversed(dirs):
            os.fchmod(tree.dir(rel), stat.S_IMODE(st.st_mode))
            fd, name = tree.parent(rel)
            _times(st, fd, name)
    finally:
        tree.close()


def commit(s: Scan, base: Baseline) -> list[dict]:
    """Check, then apply: the files committed. LayerRefused (`sandbox_conflict`) when a path
    changed since `base` was taken; nothing is written then."""
    changed = conflicts(s, base)
    if changed:
        raise LayerRefused(SANDBOX_CONFLICT, "changed since the dry run: " + ", ".join(
            changed[:20]) + (f" and {len(changed) - 20} more" if len(changed) > 20 else ""))
    apply(s)
    return [{"path": f["path"], "operation": f["operation"]} for f in s.files]


def changed_paths(files: Iterable[dict]) -> list[str]:
    return [f["path"] for f in files]

"""Undo of a turn (docs/checkpoints.md, "Undo"): the workspace as it was before turn N.

The plan: every live checkpoint of turn N and later; for each path, the target is its
previous state in the earliest of them, and the state raw-tui last left it in is the newest
write the ledger knows (a checkpoint's `after`, an undo). A path already at its target is
done (an undo run again after it was interrupted finishes the job); a path still as raw-tui
left it is restored or removed; anything else is a conflict, left alone unless `overwrite`.

Applying: removals deepest first, then creations parents first (a file through a temp file
and a rename, its mode and modification time kept, or in place when it has other hard
links; a symlink as recorded), directory modes last. A path is never followed through a
symlink.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..tools import fsatomic
from . import state
from .state import State
from .ledger import Checkpoint
from .store import Store


@dataclass
class Entry:
    path: str
    target: State
    expected: State | None  # what raw-tui last wrote there; None: not known
    current: State
    action: str = ""  # restored | removed | conflict
    write: bool = False  # it needs a change on disk


@dataclass
class UndoPlan:
    turn: str
    checkpoints: list[Checkpoint]
    entries: list[Entry] = field(default_factory=list)

    def report(self) -> list[dict[str, str]]:
        return [{"path": e.path, "action": e.action} for e in self.entries]

    @property
    def conflicts(self) -> list[Entry]:
        return [e for e in self.entries if e.action == "conflict"]


def turns_with_changes(store: Store) -> list[str]:
    """The turns that have live checkpoints, in order."""
    return list(dict.fromkeys(c.turn for c in store.checkpoints if c.live))


def plan(store: Store, turns: list[str], overwrite: bool = False) -> UndoPlan:
    """The undo of `turns[0]` and every turn after it (`turns`: the session's turns from N)."""
    wanted = set(turns)
    chosen = [c for c in store.checkpoints if c.live and c.turn in wanted]
    out = UndoPlan(turn=turns[0], checkpoints=chosen)
    targets: dict[str, State] = {}
    for c in chosen:  # the earliest previous state wins
        for path, before in c.paths.items():
            targets.setdefault(path, before)
    last: dict[str, State | None] = {}
    for c in store.checkpoints:  # a checkpoint without `after` (killed mid-commit): unknown
        if not c.void and c.after is None:
            for path in c.paths:
                last[path] = None
    for _, paths in store.writes:
        last.update(paths)
    foreign = _changed_between(store, {c.id for c in chosen})
    for path, target in targets.items():
        current = state.of(path)
        entry = Entry(path, target, last.get(path), current)
        if state.same(current, target):
            entry.action = _done(target)
        elif overwrite or (path not in foreign and entry.expected is not None
                           and state.same(current, entry.expected)):
            entry.action, entry.write = _done(target), True
        else:
            entry.action = "conflict"
        out.entries.append(entry)
    _keep_folders_with_strangers(out, overwrite)
    out.entries.sort(key=lambda e: e.path)
    return out


def _changed_between(store: Store, chosen: set[str]) -> set[str]:
    """Paths changed by someone else between two of raw-tui's writes within the undo: a
    chosen checkpoint's previous state differs from what raw-tui wrote there before it.
    Undoing them would throw that change away: conflicts."""
    out: set[str] = set()
    seen: set[str] = set()  # paths a chosen checkpoint already holds
    wrote: dict[str, State | None] = {}
    for kind, ident, paths in store.order:
        if kind == "write":
            wrote.update(paths)
            continue
        if ident not in chosen:
            continue
        for path, before in paths.items():
            if path in seen and wrote.get(path) is not None \
                    and not state.same(before, wrote[path]):
                out.add(path)
            seen.add(path)
    return out


def _done(target: State) -> str:
    return "removed" if target["kind"] == "absent" else "restored"


def _keep_folders_with_strangers(p: UndoPlan, overwrite: bool) -> None:
    """A folder to remove that holds what the plan does not remove is a conflict."""
    if overwrite:
        return
    removing = {e.path for e in p.entries if e.action == "removed"}
    for e in p.entries:
        if e.write and e.current["kind"] == "dir" and e.target["kind"] != "dir":
            inside = state.subtree(e.path)
            if any(x not in removing for x in inside):
                e.action, e.write = "conflict", False


def apply(store: Store, p: UndoPlan, overwrite: bool = False) -> None:
    todo = [e for e in p.entries if e.write]
    # an undo killed mid-write left its temp file: each folder written to loses those first
    for folder in {os.path.dirname(e.path) for e in todo if e.target["kind"] == "file"}:
        fsatomic.sweep_stale(folder)
    for e in sorted(todo, key=lambda e: e.path.count("/"), reverse=True):
        if e.current["kind"] != "absent" and (e.target["kind"] != e.current["kind"]
                                              or e.target["kind"] == "symlink"):
            _remove(e.path, overwrite)
    dirs: list[Entry] = []
    for e in sorted(todo, key=lambda e: (e.path.count("/"), e.path)):
        kind = e.target["kind"]
        if kind == "dir":
            if not os.path.lexists(e.path):
                _parents(e.path)
                os.mkdir(e.path, 0o700)
            dirs.append(e)
        elif kind == "file":
            _parents(e.path)
            _put_file(e.path, store.content(e.target), e.target)
        elif kind == "symlink":
            _parents(e.path)
            os.symlink(e.target["target"], e.path)
    for e in sorted(dirs, key=lambda e: e.path.count("/"), reverse=True):
        os.chmod(e.path, e.target["mode"], follow_symlinks=False)


def _remove(path: str, overwrite: bool) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        if overwrite:
            shutil.rmtree(path)
        else:
            try:
                os.rmdir(path)
            except OSError:
                shutil.rmtree(path)  # only what the plan removes was left (checked)
    else:
        os.unlink(path)


def _parents(path: str) -> None:
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)


def _put_file(path: str, data: bytes, target: State) -> None:
    """Through a temp file and a rename; a file that has other hard links in place, so
    that every name sees it (as the bash layer's commit wrote it: they are recorded too)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        _write(os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC),
               path, data, target)
        return
    # named as every temp file of raw-tui's (tools/fsatomic.py): a killed undo's is swept
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(path) or ".",
                                prefix=fsatomic.temp_prefix(path), suffix=fsatomic.SUFFIX)
    try:
        _write(fd, temp, data, target)
        os.rename(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def _write(fd: int, path: str, data: bytes, target: State) -> None:
    """All of `data` into `fd` (closed after), with the target's mode and mtime."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, target["mode"])
    finally:
        os.close(fd)
    mtime = target.get("mtime")
    if mtime is not None:
        os.utime(path, ns=(mtime, mtime), follow_symlinks=False)


def run(store: Store, turns: list[str], *, dry_run: bool = False,
        overwrite: bool = False) -> UndoPlan:
    """UndoPlan, and unless `dry_run` apply and record it (the ledger's `undo`)."""
    p = plan(store, turns, overwrite)
    if dry_run or not p.checkpoints:
        return p
    apply(store, p, overwrite)
    written: dict[str, Any] = {}
    for e in p.entries:
        if e.action != "conflict":
            written[e.path] = state.of(e.path)
    # with conflicts left the turn stays undoable (`overwrite` may finish it later)
    undone = [] if p.conflicts else [c.id for c in p.checkpoints]
    store.note_undo(p.turn, undone, written)
    return p

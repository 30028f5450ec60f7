"""What dispatch calls around a change to the user's files (docs/checkpoints.md).

- write_file: before its handler, the previous state of every path its effects name (the
  file a symlink points to as well, and the folders a write would create), its content
  copied as it is; after it, the state it left, and the content's chunking and hashing
  handed to the store's settling thread (store.py).
- a bash layer: the sandbox asks `before(scan)` once the layer is checked and before any
  step is applied, `after` once it is committed, `void` when it was refused.
- bash outside the overlay (mode workspace or off, a run not previewed): noted as
  unobserved, with its number of commands.
Then the bound: past `ui.checkpoint_bytes` the oldest turns' checkpoints go, with a notice.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, Any

from ..protocol import bus as ev
from ..tools.approval_preview import effect_files
from . import state
from .ledger import Checkpoint
from .store import Store

if TYPE_CHECKING:
    from ..session.state import SessionState

WRITE_FILE, BASH = "builtin/write_file", "builtin/bash"


class Recorder:
    def __init__(self, store: Store, bus: ev.Bus, cwd: str) -> None:
        self.store, self.bus, self.cwd = store, bus, os.path.realpath(cwd)

    # dispatch's side ---------------------------------------------------------------------
    def before_handler(self, call: Any) -> None:
        identity = call.tool.identity if call.tool is not None else None
        if identity == WRITE_FILE:
            paths = write_file_paths(call.effects)
            if paths:
                try:
                    call.checkpoint = self.store.record(call.turn_id or "", call.call_id, paths,
                                                        defer=True)
                except OSError as err:
                    from ..protocol import errors
                    from ..tools.dispatch import Stop

                    raise Stop("handler", errors.TOOL_ERROR, f"checkpoint not recorded "
                               f"({err}); nothing was written") from None
        elif identity == BASH and call.sandbox is not None:
            call.sandbox.checkpoint = LayerHook(self, call)

    def after_handler(self, call: Any) -> None:
        identity = call.tool.identity if call.tool is not None else None
        c = call.checkpoint
        if identity == WRITE_FILE and c is not None:
            self.store.after(c)
            settle_after_the_call(self.store, c)
        if identity == BASH and call.report.outcome == "ran":
            box = call.sandbox
            if box is None or box.unobserved:
                commands = call.arguments.get("commands", []) \
                    if isinstance(call.arguments, dict) else []
                self.store.note_unobserved(call.turn_id or "", call.call_id, "bash",
                                           max(1, len(commands)))
        if c is not None:
            self.bound(call.turn_id or "")

    def bound(self, turn: str) -> None:
        dropped = self.store.enforce(turn)
        if dropped:
            self.bus.publish(ev.Notice(level="warning", message=(
                f"checkpoints of {len(dropped)} older turn{'s' if len(dropped) > 1 else ''} "
                f"dropped: they passed ui.checkpoint_bytes ({self.store.limit} bytes); "
                "those turns can no longer be undone")))


def settle_after_the_call(store: Store, c: Any) -> None:
    """`c`'s content chunked and hashed once the call has returned (store.py): on the settling
    thread, started from the event loop's next turn, so that it does not compete with the
    rest of the call for the interpreter."""
    import asyncio

    try:
        asyncio.get_running_loop().call_soon(store.settle_later, c)
    except RuntimeError:  # no event loop (a direct caller): now
        store.settle_later(c)


class LayerHook:
    """Given to a sandboxed bash call (raw_tui/tools/sandbox/call.py): its commit's
    checkpoint."""

    def __init__(self, recorder: Recorder, call: Any) -> None:
        self.recorder, self.call = recorder, call

    def before(self, scan: Any) -> Checkpoint:
        c = self.recorder.store.record(self.call.turn_id or "", self.call.call_id,
                                       layer_paths(scan, self.recorder.cwd))
        self.call.checkpoint = c
        return c

    def after(self, c: Checkpoint) -> None:
        self.recorder.store.after(c)

    def void(self, c: Checkpoint) -> None:
        self.recorder.store.void(c)
        self.call.checkpoint = None


def write_file_paths(effects: Any) -> list[str]:
    out: list[str] = []
    for path, _ in effect_files(effects):
        out += state.absent_parents(path, "/")
        out.append(path)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                real = os.path.realpath(path)
                out += state.absent_parents(real, "/")
                out.append(real)
        except OSError:
            pass
    return list(dict.fromkeys(out))


def layer_paths(scan: Any, workspace: str | None = None) -> list[str]:
    """Every path the layer's commit changes; a folder it removes or replaces, with
    everything under it; a file with other hard links (the commit writes it in place:
    raw_tui/tools/sandbox/commit.py), its other names in `workspace` too."""
    out: list[str] = []
    linked: set[tuple[int, int]] = set()
    for entry in scan.files:
        path = entry["path"]
        out.append(path)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and (entry["operation"] == "delete"
                                         or entry["kind"] != "dir"):
            out += state.subtree(path)
        elif stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            linked.add((st.st_dev, st.st_ino))
    if linked and workspace:
        out += other_links(workspace, linked)
    return list(dict.fromkeys(out))


def other_links(root: str, inodes: set[tuple[int, int]]) -> list[str]:
    """The regular files under `root` that are one of `inodes` (symlinks not followed)."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if st.st_nlink > 1 and (st.st_dev, st.st_ino) in inodes:
                out.append(path)
    return out


def for_session(session: SessionState) -> Recorder | None:
    """The checkpoints of a session that keeps a history (None otherwise: nothing to undo
    from). The session holds its lock while open (an undo from outside refuses then)."""
    if session.store is None:
        return None
    store = Store(session.session_id, limit=session.config.raw.ui.checkpoint_bytes)
    return Recorder(store, session.bus, session.cwd)


def hold(recorder: Recorder | None, warn: Any) -> None:
    """The open session's shared lock; a failure is a warning, never a failed session."""
    if recorder is None:
        return
    from .store import Busy

    try:
        recorder.store.hold()
    except (Busy, OSError) as err:
        warn(f"checkpoints: {err}")

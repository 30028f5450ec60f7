"""A session's checkpoint store (docs/checkpoints.md): `$XDG_STATE_HOME/raw-tui/checkpoints/
<session id>/`, folders 0700, files 0600, made at the first checkpoint (a session that
changes nothing has none).

- `ledger.jsonl`: one JSON record a line, appended with one write (not fsynced, see
  docs/decisions.md):
  `checkpoint {id, turn, call, paths: {path: previous state}, pack, objects}` (written before
  its change is committed: a committed change always has one), `after {id, paths}` (the
  state raw-tui left), `void {id}` (the change was refused, nothing written),
  `unobserved {turn, call, what, count}` (a call that changed files raw-tui could not see),
  `undo {turn, undone, paths}`, `pack {pack, objects}` (chunks kept when older packs went),
  `dropped {ids, turns}`, `settled {id, pack, objects, paths}` (a deferred checkpoint's
  content chunked, see below). A torn last line (a killed process) is ignored.
- A write_file's checkpoint is deferred: before the write each file's previous content is
  kept by a hard link `staged/<id>-<n>` (write_file replaces a file by a rename, so the link
  keeps the old inode; `raw: ["@<id>-<n>", 0, size]`), or, where no link can be made (another
  file system, a file with other links), copied as it is into `packs/<id>.pack` (`raw:
  [pack, offset, length]`); no digest yet. After the commit a background thread cuts and
  hashes it into chunks (a new pack of the chunks no earlier checkpoint had), records
  `settled`, and deletes the link or the raw pack. An undo settles whatever is left first (a
  killed process leaves it raw).
- `packs/<id>.pack`: the chunks a checkpoint stored that no earlier one had, one after the
  other; `objects` maps each chunk's SHA-256 to `[offset, length]` in it. Equal content is
  stored once per session (raw_tui/checkpoints/chunks.py cuts it).
- `lock`: held shared by the session while it is open (from its first checkpoint on),
  exclusive by an undo from outside.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from . import state
from .ledger import Checkpoint, Ledger, Unobserved
from .packs import PackWriter
from .settling import Settling, raw_paths
from .state import State

DEFAULT_BYTES = 1 << 30  # ui.checkpoint_bytes


def root() -> Path:
    from ..paths import state_home

    return state_home() / "checkpoints"


def forget(session_id: str) -> None:
    """A deleted session's checkpoints go with it."""
    import shutil

    shutil.rmtree(root() / session_id, ignore_errors=True)


class Busy(Exception):
    pass


@dataclass
class Store(Ledger, Settling):
    session_id: str
    base: Path | None = None
    limit: int = DEFAULT_BYTES
    checkpoints: list[Checkpoint] = field(default_factory=list)
    unobserved: list[Unobserved] = field(default_factory=list)
    # every record that wrote paths, in order: (checkpoint id or "", {path: state})
    writes: list[tuple[str, dict[str, State]]] = field(default_factory=list)
    # the ledger's order: ("before", checkpoint id, paths) and ("write", id or "", paths)
    order: list[tuple[str, str, dict[str, State]]] = field(default_factory=list)
    index: dict[str, tuple[str, int, int]] = field(default_factory=dict)  # sha -> pack, off, len
    pack_bytes: dict[str, int] = field(default_factory=dict)
    _mutex: Any = field(default_factory=threading.RLock, repr=False)  # the settling thread
    _settler: Any = None  # its executor, made at the first deferred checkpoint
    _lock_fd: int | None = None
    _lock_wanted: bool = False  # a session holds the lock once its folder exists
    _seq: int = 0

    def __post_init__(self) -> None:
        self.dir = (self.base or root()) / self.session_id
        self.load()

    # the files ---------------------------------------------------------------------------
    def _ensure_dir(self) -> None:
        if (self.dir / "packs").is_dir():
            return
        self.dir.parent.parent.mkdir(parents=True, exist_ok=True)  # the state folder
        for folder in (self.dir.parent, self.dir, self.dir / "packs"):
            try:
                folder.mkdir(mode=0o700)
            except FileExistsError:
                pass
            os.chmod(folder, 0o700)
        if self._lock_wanted:
            try:
                self.hold()
            except Busy:  # an undo from outside runs right now: it refuses nothing of ours
                pass

    # the lock ----------------------------------------------------------------------------
    def hold(self, exclusive: bool = False) -> None:
        """Shared while a session is open; exclusive for an undo from outside (Busy when
        another process holds it). A session whose folder does not exist yet (nothing to
        undo) takes it when its first checkpoint makes the folder."""
        if self._lock_fd is not None:
            return
        if not exclusive and not self.dir.is_dir():
            self._lock_wanted = True
            return
        self._ensure_dir()
        fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise Busy(f"session {self.session_id} is open in another process") from None
        self._lock_fd = fd

    def release(self) -> None:
        self.close()  # the settling thread's work is done while the lock is still held
        self._lock_wanted = False
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # recording ---------------------------------------------------------------------------
    def record(self, turn: str, call: str, paths: Iterable[str], *,
               defer: bool = False) -> Checkpoint:
        """The previous state of every path (content stored), before the change. `defer`:
        a file's bytes are copied as they are, chunked and hashed later (`settle`)."""
        with self._mutex:
            self._seq += 1
            ident = f"k{self._seq:06d}"
            pack = PackWriter(self, ident)
            try:
                if defer:
                    recorded = {}
                    for p in dict.fromkeys(paths):
                        recorded[p] = self._stage(p, ident, len(recorded)) \
                            or state.of(p, pack.store_raw, raw=True)
                else:
                    recorded = {p: state.of(p, pack.store) for p in dict.fromkeys(paths)}
            finally:
                pack.close()
            record = {"t": "checkpoint", "id": ident, "turn": turn, "call": call,
                      "time": time.time(), "paths": recorded,
                      "pack": ident if pack.offset else None, "objects": pack.objects}
            self._append(record)
            self._apply(record)
            return self.checkpoints[-1]

    def after(self, c: Checkpoint) -> None:
        """The state raw-tui left each path in (its later conflict check)."""
        paths = {p: state.of(p, left=True) for p in c.paths}
        record = {"t": "after", "id": c.id, "paths": paths}
        with self._mutex:
            self._append(record)
            self._apply(record)

    def void(self, c: Checkpoint) -> None:
        with self._mutex:
            self._append({"t": "void", "id": c.id})
            c.void = True
            self._unstage(c)
            if raw_paths(c) and c.pack is not None:  # its raw copy serves nothing now
                self.pack_bytes.pop(c.pack, None)
                try:
                    os.unlink(self.dir / "packs" / f"{c.pack}.pack")
                except FileNotFoundError:
                    pass

    def note_unobserved(self, turn: str, call: str, what: str, count: int) -> None:
        record = {"t": "unobserved", "turn": turn, "call": call, "what": what, "count": count}
        with self._mutex:
            self._append(record)
            self._apply(record)

    def note_undo(self, turn: str, undone: list[str], paths: dict[str, State]) -> None:
        record = {"t": "undo", "turn": turn, "undone": undone, "paths": paths}
        with self._mutex:
            self._append(record)
            self._apply(record)

    # reading -----------------------------------------------------------------------------
    def content(self, recorded: State) -> bytes:
        raw = recorded.get("raw")
        if raw is not None and raw[0].startswith("@"):  # deferred: the staged link
            data = state.read_bytes(str(self.dir / "staged" / raw[0][1:]))
            if len(data) != raw[2]:
                raise OSError(f"staged checkpoint content {raw[0][1:]} is damaged")
            return data
        if raw is not None:  # deferred, not settled yet: the bytes as they were copied
            pack, off, length = raw
            with self._mutex, open(self.dir / "packs" / f"{pack}.pack", "rb") as f:
                f.seek(off)
                data = f.read(length)
            if len(data) != length:
                raise OSError(f"checkpoint content in {pack} is damaged")
            return data
        parts = []
        handles: dict[str, Any] = {}
        try:
            for sha in recorded.get("chunks", []):
                pack, off, length = self.index[sha]
                f = handles.get(pack)
                if f is None:
                    f = handles[pack] = open(self.dir / "packs" / f"{pack}.pack", "rb")
                f.seek(off)
                parts.append(f.read(length))
        finally:
            for f in handles.values():
                f.close()
        data = b"".join(parts)
        if state.digest([hashlib.sha256(p).hexdigest() for p in parts]) != recorded.get("sha"):
            raise OSError(f"checkpoint content of {recorded.get('sha')} is damaged")
        return data

    def bytes_stored(self) -> int:
        return sum(self.pack_bytes.values())

    # the bound ---------------------------------------------------------------------------
    def enforce(self, keep_turn: str) -> list[str]:
        """Past `limit`: drop the oldest turns' checkpoints (never `keep_turn`'s), keeping
        the chunks later ones still use. The turns dropped."""
        with self._mutex:
            return self._enforce(keep_turn)

    def _enforce(self, keep_turn: str) -> list[str]:
        dropped_turns: list[str] = []
        while self.bytes_stored() > self.limit:
            turns = list(dict.fromkeys(c.turn for c in self.checkpoints
                                       if not c.dropped and not c.void))
            turns = [t for t in turns if t != keep_turn]
            if not turns:
                break
            oldest = turns[0]
            self._drop([c for c in self.checkpoints if c.turn == oldest and not c.dropped])
            dropped_turns.append(oldest)
        return dropped_turns

    def _drop(self, gone: list[Checkpoint]) -> None:
        ids = {c.id for c in gone}
        used: set[str] = set()
        for c in self.checkpoints:
            if c.id in ids or c.dropped:
                continue
            for s in c.paths.values():
                used.update(s.get("chunks", []))
        for c in gone:
            self._unstage(c)
        packs = {pack for c in gone if (pack := c.pack) is not None}
        # chunks of those packs still used: moved to a new pack first
        keep = {sha: loc for sha, loc in self.index.items() if loc[0] in packs and sha in used}
        # packs with no chunk used by anyone (earlier drops' leftovers) go too
        if keep:
            self._seq += 1
            ident = f"k{self._seq:06d}"
            writer = PackWriter(self, ident)
            try:
                for sha, (pack, off, length) in keep.items():
                    with open(self.dir / "packs" / f"{pack}.pack", "rb") as f:
                        f.seek(off)
                        writer.store_chunk(sha, f.read(length), moving=True)
            finally:
                writer.close()
            record = {"t": "pack", "pack": ident, "objects": writer.objects}
            self._append(record)
            self._apply(record)
        record = {"t": "dropped", "ids": sorted(ids), "packs": sorted(packs),
                  "turns": sorted({c.turn for c in gone})}
        self._append(record)
        self._apply(record)
        for pack in packs:
            try:
                os.unlink(self.dir / "packs" / f"{pack}.pack")
            except FileNotFoundError:
                pass




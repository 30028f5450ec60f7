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
import json
import os
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from . import chunks, state
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
class Checkpoint:
    id: str
    turn: str
    call: str
    paths: dict[str, State]
    pack: str | None
    after: dict[str, State] | None = None
    void: bool = False
    undone: bool = False
    dropped: bool = False

    @property
    def live(self) -> bool:
        return not (self.void or self.undone or self.dropped)


@dataclass
class Unobserved:
    turn: str
    call: str
    what: str
    count: int


@dataclass
class Store:
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

    def _append(self, record: dict[str, Any]) -> None:
        self._ensure_dir()
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8",
                                                                         "surrogateescape")
        fd = os.open(self.dir / "ledger.jsonl",
                     os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)

    def load(self) -> None:
        self.checkpoints, self.unobserved, self.writes, self.order = [], [], [], []
        self.index, self.pack_bytes = {}, {}
        try:
            data = (self.dir / "ledger.jsonl").read_bytes()
        except FileNotFoundError:
            return
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                record = json.loads(line.decode("utf-8", "surrogateescape"))
            except ValueError:
                continue  # a line torn by a killed writer
            self._apply(record)

    def _apply(self, r: dict[str, Any]) -> None:
        by_id = {c.id: c for c in self.checkpoints}
        kind = r.get("t")
        if kind == "checkpoint":
            c = Checkpoint(r["id"], r["turn"], r["call"], r["paths"], r.get("pack"))
            self.checkpoints.append(c)
            self.order.append(("before", c.id, c.paths))
            self._seq = max(self._seq, int(r["id"].lstrip("k") or 0))
            self._add_objects(r.get("pack"), r.get("objects") or {})
            for s in c.paths.values():
                raw = s.get("raw")
                if raw:  # copied into its pack, or a staged link (counted under "@id")
                    key = f"@{c.id}" if raw[0].startswith("@") else raw[0]
                    self.pack_bytes[key] = self.pack_bytes.get(key, 0) + raw[2]
        elif kind == "after" and r["id"] in by_id:
            by_id[r["id"]].after = r["paths"]
            self.writes.append((r["id"], r["paths"]))
            self.order.append(("write", r["id"], r["paths"]))
        elif kind == "void" and r["id"] in by_id:
            by_id[r["id"]].void = True
        elif kind == "unobserved":
            self.unobserved.append(Unobserved(r["turn"], r["call"], r["what"], r["count"]))
        elif kind == "undo":
            for i in r["undone"]:
                if i in by_id:
                    by_id[i].undone = True
            self.writes.append(("", r["paths"]))
            self.order.append(("write", "", r["paths"]))
        elif kind == "pack":
            self._seq = max(self._seq, int(r["pack"].lstrip("k") or 0))
            self._add_objects(r["pack"], r["objects"])
        elif kind == "settled" and r["id"] in by_id:
            c = by_id[r["id"]]
            for path, digest in r["paths"].items():
                recorded = c.paths.get(path)
                if recorded is not None:
                    recorded.pop("raw", None)
                    recorded.update(digest)
            self.pack_bytes.pop(c.pack or "", None)
            self.pack_bytes.pop(f"@{c.id}", None)
            c.pack = r.get("pack")
            if c.pack is not None:
                self._seq = max(self._seq, int(c.pack.lstrip("k") or 0))
            self._add_objects(c.pack, r.get("objects") or {})
        elif kind == "dropped":
            for i in r["ids"]:
                if i in by_id:
                    by_id[i].dropped = True
            for pack in r.get("packs", []):
                self.pack_bytes.pop(pack, None)
                self.index = {k: v for k, v in self.index.items() if v[0] != pack}

    def _add_objects(self, pack: str | None, objects: dict[str, list[int]]) -> None:
        if pack is None:
            return
        for sha, (off, length) in objects.items():
            self.index[sha] = (pack, off, length)
        self.pack_bytes[pack] = self.pack_bytes.get(pack, 0) + sum(n for _, n in
                                                                    objects.values())

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
            pack = _PackWriter(self, ident)
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

    # deferred content --------------------------------------------------------------------
    def _stage(self, path: str, ident: str, n: int) -> State | None:
        """A file with no other hard link, kept by a hard link of its own under `staged/`:
        write_file replaces it by a rename, so the link keeps its previous content without
        a byte copied (a copy's data would be flushed by the write's own fsync). None where
        that cannot be done (another file system, other links, not a file): copied then."""
        try:
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
                return None
            folder = self.dir / "staged"
            if not folder.is_dir():
                self._ensure_dir()
                folder.mkdir(mode=0o700, exist_ok=True)
            name = f"{ident}-{n}"
            os.link(path, folder / name, follow_symlinks=False)
        except OSError:
            return None
        linked = os.lstat(folder / name)
        if linked.st_ino != st.st_ino or linked.st_nlink != 2 or linked.st_size != st.st_size \
                or linked.st_mtime_ns != st.st_mtime_ns:  # replaced or written meanwhile
            os.unlink(folder / name)
            return None
        return {"kind": "file", "mode": stat.S_IMODE(st.st_mode), "size": st.st_size,
                "mtime": st.st_mtime_ns, "ino": st.st_ino, "ctime": st.st_ctime_ns,
                "raw": [f"@{name}", 0, st.st_size]}

    def _unstage(self, c: Checkpoint) -> None:
        for s in c.paths.values():
            raw = s.get("raw")
            if raw and raw[0].startswith("@"):
                try:
                    os.unlink(self.dir / "staged" / raw[0][1:])
                except FileNotFoundError:
                    pass
        self.pack_bytes.pop(f"@{c.id}", None)

    def settle_later(self, c: Checkpoint) -> None:
        """Chunk and hash `c`'s raw content on the settling thread (after its commit)."""
        if not _raw_paths(c):
            return
        with self._mutex:
            if self._settler is None:
                self._settler = ThreadPoolExecutor(1, thread_name_prefix="raw-tui-checkpoints")
            settler = self._settler
        try:
            settler.submit(self._settle_quietly, c)
        except RuntimeError:  # shut down (the session closes): the next undo settles it
            pass

    def _settle_quietly(self, c: Checkpoint) -> None:
        try:
            self.settle(c)
        except OSError:
            pass  # left raw: still restorable, settled again by the next undo

    def settle(self, c: Checkpoint) -> None:
        with self._mutex:
            raw = _raw_paths(c)
            if not raw or c.dropped:
                return
            self._seq += 1
            ident = f"k{self._seq:06d}"
            writer = _PackWriter(self, ident)
            digests: dict[str, State] = {}
            try:
                for path in raw:
                    ids = writer.store(self.content(c.paths[path]))
                    digests[path] = {"sha": state.digest(ids), "chunks": ids}
            finally:
                writer.close()
            old_pack = c.pack
            record = {"t": "settled", "id": c.id, "pack": ident if writer.objects else None,
                      "objects": writer.objects, "paths": digests}
            links = [c.paths[p]["raw"][0][1:] for p in raw
                     if c.paths[p]["raw"][0].startswith("@")]
            self._append(record)
            self._apply(record)
            for name in links:
                try:
                    os.unlink(self.dir / "staged" / name)
                except FileNotFoundError:
                    pass
            if old_pack is not None:
                try:
                    os.unlink(self.dir / "packs" / f"{old_pack}.pack")
                except FileNotFoundError:
                    pass

    def settle_all(self) -> None:
        """Every checkpoint still raw, now (before an undo plans)."""
        with self._mutex:
            for c in list(self.checkpoints):
                if not c.void:
                    self.settle(c)

    def close(self) -> None:
        """Wait for the settling thread (what it has not done, the next undo does)."""
        settler, self._settler = self._settler, None
        if settler is not None:
            settler.shutdown(wait=True)

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
            if _raw_paths(c) and c.pack is not None:  # its raw copy serves nothing now
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
            writer = _PackWriter(self, ident)
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


class _PackWriter:
    """The new chunks of one checkpoint, written to `packs/<id>.pack` as they come."""

    def __init__(self, store: Store, ident: str) -> None:
        self.owner, self.ident = store, ident
        self.objects: dict[str, list[int]] = {}
        self.fd: int | None = None
        self.offset = 0
        self.raw = 0  # bytes copied as they are (a deferred checkpoint)
        self.pending: list[Any] = []
        self.pending_bytes = 0

    def store_raw(self, data: bytes) -> list[Any]:
        """`data` as it is: its `raw` reference [pack, offset, length]."""
        at = self.offset
        self._write(data)
        self.raw += len(data)
        return [self.ident, at, len(data)]

    def store(self, data: bytes) -> list[str]:
        out = []
        view = memoryview(data)
        for start, end in chunks.cut(data):
            piece = view[start:end]
            sha = hashlib.sha256(piece).hexdigest()
            out.append(sha)
            self.store_chunk(sha, piece)
        return out

    def store_chunk(self, sha: str, piece, moving: bool = False) -> None:
        """`moving`: a kept chunk copied out of a pack about to go (it is in the index)."""
        if sha in self.objects or (sha in self.owner.index and not moving):
            return
        at = self.offset
        self._write(piece)
        self.objects[sha] = [at, self.offset - at]

    def _write(self, data) -> None:
        """Small pieces are gathered and written together (a bash layer's thousand small
        files: one write, not a thousand); all are written before `close` returns."""
        self.offset += len(data)
        self.pending.append(data)
        self.pending_bytes += len(data)
        if self.pending_bytes >= 1 << 20:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        if self.fd is None:
            self.owner._ensure_dir()
            self.fd = os.open(self.owner.dir / "packs" / f"{self.ident}.pack",
                              os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        view = memoryview(b"".join(self.pending))
        self.pending, self.pending_bytes = [], 0
        while view:
            view = view[os.write(self.fd, view):]

    def close(self) -> None:
        try:
            self._flush()
        finally:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None


def _raw_paths(c: Checkpoint) -> list[str]:
    return [p for p, s in c.paths.items() if "raw" in s]

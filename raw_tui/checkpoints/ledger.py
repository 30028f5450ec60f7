"""The ledger of a checkpoint store (`ledger.jsonl`, its records described in
raw_tui/checkpoints/store.py): appending a record, and reading them back into the store's
checkpoints, writes and chunk index."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from .state import State


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


class Ledger:
    """The ledger's half of `Store` (raw_tui/checkpoints/store.py)."""

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

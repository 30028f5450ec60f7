"""A checkpoint's pack (`packs/<id>.pack`): the chunks no earlier checkpoint stored, one
after the other, and a deferred checkpoint's bytes copied as they are."""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

from . import chunks

if TYPE_CHECKING:
    from .store import Store


class PackWriter:
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

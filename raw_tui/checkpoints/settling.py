"""A deferred (write_file) checkpoint: each file's previous content kept by a hard link
under `staged/` (or copied raw into its pack), then chunked and hashed after the commit on a
settling thread (raw_tui/checkpoints/store.py describes the files)."""

from __future__ import annotations

import os
import stat
from concurrent.futures import ThreadPoolExecutor

from . import state
from .ledger import Checkpoint
from .packs import PackWriter
from .state import State


class Settling:
    """The deferred content's half of `Store` (raw_tui/checkpoints/store.py)."""

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
        if not raw_paths(c):
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
            raw = raw_paths(c)
            if not raw or c.dropped:
                return
            self._seq += 1
            ident = f"k{self._seq:06d}"
            writer = PackWriter(self, ident)
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


def raw_paths(c: Checkpoint) -> list[str]:
    return [p for p, s in c.paths.items() if "raw" in s]

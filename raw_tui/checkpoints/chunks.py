"""Content-defined chunks of a file's bytes (docs/checkpoints.md, "Storage").

A chunk ends after a newline whose preceding WINDOW bytes have a CRC-32 with its low bits
zero, once it holds MIN_CHUNK bytes: boundaries depend on the content around them, not on
offsets, so a line inserted, changed or removed changes the chunk that holds it (and rarely
the next), and a file changed by one line between two checkpoints is stored once plus a
chunk. Below MIN_CHUNK nothing is looked at; past it Python visits about 64 newlines a chunk
(`bytes.find` and `zlib.crc32` run in C). The minimum spans only a few boundaries' worth of
newlines: when an edit moves a boundary, the cuts after it then meet the old ones again within
a chunk or two. (With one newline in 16 past 16 KiB the minimum skipped some 20 boundaries,
and on some texts the cuts took over a hundred chunks to meet again.) Without a boundary a
chunk ends at MAX_CHUNK (binary data, very long lines).
"""

from __future__ import annotations

import zlib

WHOLE_BELOW = 64 * 1024  # a smaller file is one chunk
MIN_CHUNK = 12 * 1024
MAX_CHUNK = 64 * 1024
WINDOW = 64  # the bytes before a newline that decide whether a chunk ends there
MASK = 0x3F  # one newline in 64 past the minimum ends a chunk


def cut(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each chunk, covering `data` in order."""
    size = len(data)
    if size <= WHOLE_BELOW:
        return [(0, size)]
    out: list[tuple[int, int]] = []
    find, crc = data.find, zlib.crc32
    view = memoryview(data)
    start = 0
    while size - start > MIN_CHUNK:
        limit = min(start + MAX_CHUNK, size)
        pos, end = start + MIN_CHUNK, limit
        while True:
            nl = find(b"\n", pos, limit)
            if nl < 0:
                break
            if not crc(view[nl - WINDOW:nl + 1]) & MASK:
                end = nl + 1
                break
            pos = nl + 1
        out.append((start, end))
        start = end
    if start < size:
        out.append((start, size))
    return out

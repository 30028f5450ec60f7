"""Content-defined chunks of a file's bytes (docs/checkpoints.md, "Storage").

Boundaries fall after a line whose CRC-32 has its low bits zero, so they depend on the
content around them, not on offsets: a line inserted, changed or removed changes only the
chunk that holds it, and a file changed by one line between two checkpoints is stored once
plus one chunk. Every step runs in C (`bytes.split`, `zlib.crc32` through `map`,
`itertools.accumulate`); only the candidate boundaries are visited in Python. A long line
(binary data) is cut at MAX_CHUNK.
"""

from __future__ import annotations

import itertools
import zlib

WHOLE_BELOW = 64 * 1024  # a smaller file is one chunk
MIN_CHUNK = 4 * 1024
MAX_CHUNK = 64 * 1024
MASK = 0x3F  # one line in 64 ends a chunk (with the minimum: chunks of about 8-16 KiB)


def cut(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each chunk, covering `data` in order."""
    size = len(data)
    if size <= WHOLE_BELOW:
        return [(0, size)]
    lines = data.split(b"\n")
    ends = list(itertools.accumulate(map(len, lines), lambda a, n: a + n + 1))
    candidates = [ends[i] for i, h in enumerate(map(zlib.crc32, lines)) if not h & MASK]
    out: list[tuple[int, int]] = []
    start = 0
    for end in candidates:
        if end >= size:
            break
        if end - start < MIN_CHUNK:
            continue
        _emit(out, start, end)
        start = end
    _emit(out, start, size)
    return out


def _emit(out: list[tuple[int, int]], start: int, end: int) -> None:
    while end - start > MAX_CHUNK:
        out.append((start, start + MAX_CHUNK))
        start += MAX_CHUNK
    if end > start or not out:
        out.append((start, end))

"""Content-defined chunks of a file's bytes (docs/checkpoints.md, "Storage").

A chunk ends after a line whose CRC-32 has its low bits zero, once it holds MIN_CHUNK
bytes: boundaries depend on the content around them, not on offsets, so a line inserted,
changed or removed changes the chunk that holds it (and at most the next), and a file
changed by one line between two checkpoints is stored once plus a chunk or two. The lines'
ends and CRCs are computed in C (`bytes.split`, `map`, `itertools`); Python visits only the
candidate boundaries (one line in 64). Without a boundary a chunk ends at MAX_CHUNK (binary
data, a very long line).
"""

from __future__ import annotations

import itertools
import operator
import zlib

WHOLE_BELOW = 64 * 1024  # a smaller file is one chunk
MIN_CHUNK = 4 * 1024
MAX_CHUNK = 64 * 1024
MASK = 0x3F  # one line in 64 past the minimum ends a chunk (chunks of about 4-16 KiB)


def cut(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each chunk, covering `data` in order."""
    size = len(data)
    if size <= WHOLE_BELOW:
        return [(0, size)]
    lines = data.split(b"\n")
    ends = map(operator.add, itertools.accumulate(map(len, lines)), itertools.count(1))
    ends_here = map(operator.not_, map(MASK.__and__, map(zlib.crc32, lines)))
    out: list[tuple[int, int]] = []
    start = 0
    for end in itertools.compress(ends, ends_here):
        if end >= size:
            break
        if end - start >= MIN_CHUNK:
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

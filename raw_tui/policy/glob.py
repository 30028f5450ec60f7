"""Identity globs (docs/gate.md): `*` any run (including `/` and newlines), `?` one character.

Everything else is literal and the whole identity must match. Matching splits the pattern on
`*` into chunks and places each chunk at its leftmost possible position, which is exact for
this glob language and needs no backtracking (no `re`, no ReDoS).
"""

from __future__ import annotations

MAX_GLOB_CHARS = 256


class _Chunk:
    """A run of the pattern between two `*`: literal text with `?` holes."""

    __slots__ = ("text", "length", "pieces", "plain")

    def __init__(self, text: str) -> None:
        self.text = text
        self.length = len(text)
        self.plain = "?" not in text
        pieces: list[tuple[int, str]] = []
        start = 0
        for index, char in enumerate(text + "?"):
            if char == "?":
                if index > start:
                    pieces.append((start, text[start:index]))
                start = index + 1
        self.pieces = tuple(pieces)

    def at(self, identity: str, pos: int) -> bool:
        """Does the chunk match `identity` starting exactly at `pos`?"""
        if pos < 0 or pos + self.length > len(identity):
            return False
        if self.plain:
            return identity.startswith(self.text, pos)
        return all(identity.startswith(lit, pos + off) for off, lit in self.pieces)

    def find(self, identity: str, start: int, stop: int) -> int:
        """Leftmost position p in [start, stop - length] where the chunk matches, or -1."""
        if self.plain:
            return identity.find(self.text, start, stop)
        for pos in range(start, stop - self.length + 1):
            if self.at(identity, pos):
                return pos
        return -1


class Glob:
    """A compiled identity glob. Build it with `compile_glob`."""

    __slots__ = ("pattern", "_exact", "_chunks")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        parts = pattern.split("*")
        self._exact = len(parts) == 1 and "?" not in pattern
        self._chunks = tuple(_Chunk(part) for part in parts)

    def matches(self, identity: str) -> bool:
        if self._exact:
            return identity == self.pattern
        if not isinstance(identity, str):
            return False
        chunks = self._chunks
        first = chunks[0]
        if len(chunks) == 1:
            return len(identity) == first.length and first.at(identity, 0)
        last = chunks[-1]
        tail = len(identity) - last.length
        if tail < first.length or not first.at(identity, 0) or not last.at(identity, tail):
            return False
        pos = first.length
        for chunk in chunks[1:-1]:
            found = chunk.find(identity, pos, tail)
            if found < 0:
                return False
            pos = found + chunk.length
        return True

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Glob) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(("Glob", self.pattern))


def compile_glob(pattern: str) -> Glob:
    """Compile a `match` glob; a bad pattern raises ValueError with a one-line reason."""
    if not isinstance(pattern, str):
        raise ValueError("must be a string")
    if not pattern:
        raise ValueError("must not be empty")
    if len(pattern) > MAX_GLOB_CHARS:
        raise ValueError(f"at most {MAX_GLOB_CHARS} characters (got {len(pattern)})")
    return Glob(pattern)

"""Applying an Update File's hunks of a `write_file` patch (raw_tui.tools.patch parses them).

Hunks match the file exactly, then ignoring trailing, then surrounding whitespace. A hunk
must name one place: lines that occur twice where it may apply are `patch_ambiguous_context`
(as in Raw), never the first of them. A `@@ LINE` narrows each place to the lines after one
occurrence of LINE, up to the next. A hunk with no `-` or context lines inserts after its
`@@` line when it has one, else at the end of the file.

Applying keeps a leading byte order mark, each line's own ending (`\n` or `\r\n`; an added
line takes the ending of the line where it goes) and whether the file ends with a newline
(an empty file counts as ending with one); context lines keep the file's text.

`apply_hunks` raises `PatchApplyError` (code `patch_preflight_failed`, the message starting
with Raw's reason: `patch_context_not_found`, `patch_ambiguous_context`).
"""

from __future__ import annotations

from ..protocol.errors import (PATCH_AMBIGUOUS_CONTEXT, PATCH_CONTEXT_NOT_FOUND,
                               PATCH_PREFLIGHT_FAILED, RawError)
from .patch import BOM, Chunk, clip, split_lines


class PatchApplyError(RawError):
    """A patch that cannot be applied to the files as they are: `REASON: DETAIL`."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(PATCH_PREFLIGHT_FAILED, f"{reason}: {detail}")
        self.reason = reason


Line = tuple[str, str]  # (text, ending: "\n", "\r\n" or "" for a last line without one)


def split_endings(text: str) -> list[Line]:
    """The lines of `text` (split on `\n` only) with their own endings."""
    out: list[Line] = []
    for piece in split_lines(text):
        if piece.endswith("\r\n"):
            out.append((piece[:-2], "\r\n"))
        elif piece.endswith("\n"):
            out.append((piece[:-1], "\n"))
        else:
            out.append((piece, ""))
    return out


def apply_hunks(text: str, chunks: list[Chunk], path: str, no_newline: bool = False) -> str:
    """The text of a file after an Update File's hunks (see the module's docstring for what
    is kept). `no_newline`: the result ends without a newline. Raises PatchApplyError."""
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom):]
    source = split_endings(body)
    fallback = next((ending for _, ending in source if ending), "\n")
    texts = [line for line, _ in source]
    out: list[Line] = []
    pos = 0
    for start, ops in replacements(texts, chunks, path):
        out += source[pos:start]
        pos = start
        for kind, line in ops:
            if kind == " ":
                out.append(source[pos])
                pos += 1
            elif kind == "-":
                pos += 1
            else:
                here = source[pos][1] if pos < len(source) else ""
                before = source[pos - 1][1] if pos > 0 else ""
                out.append((line, here or before or fallback))
    out += source[pos:]
    out = [(line, ending or fallback) for line, ending in out[:-1]] + out[-1:]
    if out:
        last, ending = out[-1]
        keep = not no_newline and (body == "" or body.endswith("\n"))
        out[-1] = (last, (ending or fallback) if keep else "")
    return bom + "".join(line + ending for line, ending in out)


Replacement = tuple[int, list[tuple[str, str]]]  # (first line index, the hunk's ops there)


def replacements(lines: list[str], chunks: list[Chunk], path: str) -> list[Replacement]:
    found: list[Replacement] = []
    at = 0
    for n, chunk in enumerate(chunks, 1):
        where = f"{path}: hunk {n}"
        regions = [(at, len(lines))]
        if chunk.context is not None:
            anchors = seek(lines, [chunk.context], [(at, len(lines))], False)
            if not anchors:
                raise PatchApplyError(PATCH_CONTEXT_NOT_FOUND,
                                      f"{where}: cannot find the line '{clip(chunk.context)}'")
            bounds = anchors + [len(lines)]
            regions = [(a + 1, b) for a, b in zip(bounds, bounds[1:])]
        ops = list(chunk.ops)
        old = [line for kind, line in ops if kind != "+"]
        if not old:
            if len(regions) > 1:
                raise ambiguous(where, chunk.context or "")
            found.append((regions[0][0] if chunk.context is not None else len(lines), ops))
            continue
        places = seek(lines, old, regions, chunk.end_of_file)
        if not places and old[-1] == "":  # a trailing empty context line the file lacks
            last = max(i for i, (kind, _) in enumerate(ops) if kind != "+")
            ops = ops[:last] + ops[last + 1:]
            old = old[:-1]
            places = seek(lines, old, regions, chunk.end_of_file) if old else []
        if not places:
            raise PatchApplyError(PATCH_CONTEXT_NOT_FOUND, f"{where}: cannot find its lines "
                                  f"(first: '{clip(chunk.old_lines[0])}')")
        if len(places) > 1:
            raise ambiguous(where, old[0])
        found.append((places[0], ops))
        at = places[0] + len(old)
    return found


def ambiguous(where: str, first: str) -> PatchApplyError:
    return PatchApplyError(PATCH_AMBIGUOUS_CONTEXT,
                           f"{where}: its lines occur more than once (first: '{clip(first)}'); "
                           "add context lines that occur once")


def seek(lines: list[str], pattern: list[str], regions: list[tuple[int, int]],
         at_end: bool) -> list[int]:
    """Where `pattern` starts within one of `regions` (`[start, stop)` ranges of first lines;
    only at the very end of the file when `at_end`): exactly, else ignoring trailing
    whitespace, else surrounding whitespace, the first of these that finds it at all; at
    most two places (two is enough to say it is ambiguous)."""
    size, n = len(pattern), len(lines)
    for norm in (lambda s: s, str.rstrip, str.strip):
        want = [norm(p) for p in pattern]
        places: list[int] = []
        for start, stop in regions:
            firsts = range(start, min(stop, n - size + 1))
            if at_end:
                firsts = range(n - size, n - size + 1) if n - size in firsts else range(0)
            for i in firsts:
                if all(norm(lines[i + k]) == want[k] for k in range(size)):
                    places.append(i)
                    if len(places) > 1:
                        return places
        if places:
            return places
    return []

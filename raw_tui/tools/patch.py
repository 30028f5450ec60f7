"""The patch grammar of `write_file` (the OpenAI Codex `apply_patch` format, as Raw reads it).

    *** Begin Patch
    *** Add File: PATH            followed by the new file's lines, each prefixed with `+`
    *** Delete File: PATH
    *** Update File: PATH
    *** Move to: NEW_PATH         optional, right after Update File
    @@ [a line to find first]     a hunk: ` ` context, `-` removed, `+` added lines;
                                  the first hunk may leave out its `@@` line
    *** End of File               optional, after a hunk: it must match at the end of the file
    *** No newline at end of file optional, after an Add File's lines or an Update File's
                                  last hunk: the file ends without a newline
    *** End Patch

As in Codex, markers may carry surrounding spaces, blank lines between hunks are skipped, an
empty line inside a hunk is an empty context line, and the whole patch may come wrapped in a
`<<'EOF'` ... `EOF` heredoc. Hunks match the file exactly, then ignoring trailing, then
surrounding whitespace. A hunk must name one place: lines that occur twice where it may apply
are `patch_ambiguous_context` (as in Raw), never the first of them. A `@@ LINE` narrows each
place to the lines after one occurrence of LINE, up to the next. A hunk with no `-` or
context lines inserts after its `@@` line when it has one, else at the end of the file.

Applying keeps a leading byte order mark, each line's own ending (`\n` or `\r\n`; an added
line takes the ending of the line where it goes) and whether the file ends with a newline
(an empty file counts as ending with one); context lines keep the file's text.

`parse_patch` raises `PatchSyntaxError` (code `invalid_arguments`) whose message names the
1-based line of the patch text. `apply_hunks` raises `PatchApplyError` (code
`patch_preflight_failed`, the message starting with Raw's reason: `patch_context_not_found`,
`patch_ambiguous_context`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..protocol.errors import (INVALID_ARGUMENTS, PATCH_AMBIGUOUS_CONTEXT, PATCH_CONTEXT_NOT_FOUND,
                               PATCH_PREFLIGHT_FAILED, PATCH_REPEATED_TARGET, RawError)

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
END_OF_FILE = "*** End of File"
NO_NEWLINE = "*** No newline at end of file"
BOM = "\ufeff"
HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')


class PatchSyntaxError(RawError):
    def __init__(self, line: int, detail: str) -> None:
        super().__init__(INVALID_ARGUMENTS, f"line {line}: {detail}")
        self.line = line


class PatchApplyError(RawError):
    """A patch that cannot be applied to the files as they are: `REASON: DETAIL`."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(PATCH_PREFLIGHT_FAILED, f"{reason}: {detail}")
        self.reason = reason


@dataclass
class Chunk:
    context: str | None  # the `@@ TEXT` line to find before the old lines
    old_lines: list[str] = field(default_factory=list)
    new_lines: list[str] = field(default_factory=list)
    end_of_file: bool = False
    ops: list[tuple[str, str]] = field(default_factory=list)  # (" " | "-" | "+", text) in order


@dataclass
class AddFile:
    path: str
    content: str
    line: int
    no_newline: bool = False


@dataclass
class DeleteFile:
    path: str
    line: int


@dataclass
class UpdateFile:
    path: str
    move_to: str | None
    chunks: list[Chunk]
    line: int
    no_newline: bool = False


FileOp = AddFile | DeleteFile | UpdateFile


# ---------------------------------------------------------------------------- parsing

def parse_patch(text: str) -> list[FileOp]:
    """The file operations of a patch, in order. Raises PatchSyntaxError."""
    lines = text.split("\n")
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    first, last = body_bounds(lines)
    ops: list[FileOp] = []
    i = first + 1
    while i < last:
        if not lines[i].strip():
            i += 1
            continue
        op, i = parse_file_op(lines, i, last)
        ops.append(op)
    if not ops:
        raise PatchSyntaxError(last + 1, "the patch names no file")
    return ops


def body_bounds(lines: list[str]) -> tuple[int, int]:
    """Indexes of the `*** Begin Patch` and `*** End Patch` lines."""
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    if not nonblank:
        raise PatchSyntaxError(1, f"the patch is empty; it must start with '{BEGIN}'")
    first, last = nonblank[0], nonblank[-1]
    if lines[first].strip() in HEREDOC_OPENERS and lines[last].strip().endswith("EOF") \
            and len(nonblank) >= 4:
        first, last = nonblank[1], nonblank[-2]
    if lines[first].strip() != BEGIN:
        raise PatchSyntaxError(first + 1, f"the first line must be '{BEGIN}'")
    if last == first or lines[last].strip() != END:
        raise PatchSyntaxError(last + 1, f"the last line must be '{END}'")
    return first, last


def parse_file_op(lines: list[str], i: int, end: int) -> tuple[FileOp, int]:
    header = lines[i].strip()
    if has_marker(header, ADD):
        return parse_add(lines, i, end, path_of(header, ADD, i))
    if has_marker(header, DELETE):
        return DeleteFile(path_of(header, DELETE, i), i + 1), i + 1
    if has_marker(header, UPDATE):
        return parse_update(lines, i, end, path_of(header, UPDATE, i))
    raise PatchSyntaxError(
        i + 1, f"'{clip(header)}' is not a file header; expected '{ADD}PATH', "
               f"'{UPDATE}PATH' or '{DELETE}PATH'")


def has_marker(line: str, marker: str) -> bool:
    """`line` (stripped) starts with `marker` (`*** Add File: `), or is it without its space."""
    return line.startswith(marker) or line == marker.rstrip()


def path_of(header: str, marker: str, i: int) -> str:
    path = header[len(marker):].strip()
    if not path:
        raise PatchSyntaxError(i + 1, f"'{marker.strip()}' needs a path")
    if "\0" in path:
        raise PatchSyntaxError(i + 1, "a path contains a NUL character")
    return path


def parse_add(lines: list[str], i: int, end: int, path: str) -> tuple[AddFile, int]:
    content: list[str] = []
    j = i + 1
    while j < end and lines[j].startswith("+"):
        content.append(lines[j][1:] + "\n")
        j += 1
    no_newline = j < end and lines[j].strip() == NO_NEWLINE
    if no_newline:
        j += 1
        if content:
            content[-1] = content[-1][:-1]
    return AddFile(path, "".join(content), i + 1, no_newline), j


def parse_update(lines: list[str], i: int, end: int, path: str) -> tuple[UpdateFile, int]:
    j = i + 1
    move_to = None
    if j < end and has_marker(lines[j].strip(), MOVE):
        move_to = path_of(lines[j].strip(), MOVE, j)
        j += 1
    chunks: list[Chunk] = []
    while j < end:
        if not lines[j].strip():
            j += 1
            continue
        if lines[j].startswith("*"):
            break
        chunk, j = parse_chunk(lines, j, end, first=not chunks)
        chunks.append(chunk)
    if not chunks:
        raise PatchSyntaxError(i + 1, f"'{UPDATE}{path}' has no hunk")
    no_newline = j < end and lines[j].strip() == NO_NEWLINE
    return UpdateFile(path, move_to, chunks, i + 1, no_newline), j + no_newline


def parse_chunk(lines: list[str], j: int, end: int, first: bool) -> tuple[Chunk, int]:
    head = lines[j]
    if head.strip() == "@@":
        chunk, j = Chunk(None), j + 1
    elif head.startswith("@@ "):
        chunk, j = Chunk(head[3:]), j + 1
    elif first:
        chunk = Chunk(None)
    else:
        raise PatchSyntaxError(j + 1, f"expected a '@@' line to start a hunk, got '{clip(head)}'")
    taken = 0
    while j < end:
        line = lines[j]
        if line.strip() == END_OF_FILE:
            if taken == 0:
                raise PatchSyntaxError(j + 1, "a hunk has no lines")
            chunk.end_of_file = True
            j += 1
            break
        mark, rest = line[:1], line[1:]
        if mark in ("", " "):
            chunk.old_lines.append(rest)
            chunk.new_lines.append(rest)
            chunk.ops.append((" ", rest))
        elif mark == "-":
            chunk.old_lines.append(rest)
            chunk.ops.append(("-", rest))
        elif mark == "+":
            chunk.new_lines.append(rest)
            chunk.ops.append(("+", rest))
        elif taken == 0:
            raise PatchSyntaxError(
                j + 1, f"'{clip(line)}' in a hunk: every line starts with ' ', '-' or '+'")
        else:
            break  # the next hunk or file header
        taken += 1
        j += 1
    if taken == 0:
        raise PatchSyntaxError(j + 1, "a hunk has no lines")
    return chunk, j


def clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------------------- targets

def targets(ops: list[FileOp]) -> list[tuple[str, str]]:
    """(path as written, effect operation) for every target of the patch, in order."""
    out: list[tuple[str, str]] = []
    for op in ops:
        if isinstance(op, AddFile):
            out.append((op.path, "write"))
        elif isinstance(op, DeleteFile):
            out.append((op.path, "delete"))
        elif op.move_to is None:
            out.append((op.path, "write"))
        else:
            out.append((op.path, "rename_source"))
            out.append((op.move_to, "rename_destination"))
    return out


def check_repeated(paths: list[str]) -> None:
    """Raise `patch_repeated_target` when a path appears twice (compared as given)."""
    seen: set[str] = set()
    for path in paths:
        if path in seen:
            raise RawError(PATCH_REPEATED_TARGET,
                           f"{PATCH_REPEATED_TARGET}: {path} is a target twice in one patch")
        seen.add(path)


def split_lines(text: str) -> list[str]:
    """Lines with their `\\n`, split on `\\n` only (the numbering read_file shows; never
    `str.splitlines`, which also breaks at `\\r`, `\\f`, U+2028 ...)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def lexical_abspath(path: str, cwd: str) -> str:
    """`path` made absolute against `cwd` and normalized without touching the filesystem:
    `.` and `..` folded, symbolic links not resolved, a leading `//` folded to `/`."""
    out = os.path.normpath(os.path.join(cwd, path))
    if out.startswith("//"):
        out = "/" + out.lstrip("/")
    return out


# ---------------------------------------------------------------------------- applying

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

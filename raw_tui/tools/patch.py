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
`<<'EOF'` ... `EOF` heredoc. How hunks are matched and applied: raw_tui.tools.patch_apply.

`parse_patch` raises `PatchSyntaxError` (code `invalid_arguments`) whose message names the
1-based line of the patch text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..protocol.errors import INVALID_ARGUMENTS, PATCH_REPEATED_TARGET, RawError

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

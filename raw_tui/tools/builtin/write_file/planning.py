"""write_file's plan: every file's new content, computed and checked before anything is
written (`plan_call`), from operations or from a patch. The handler writes it (commit.py);
the preview shows it (preview.py).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from raw_tui.protocol.errors import (PATCH_BINARY_SOURCE, PATCH_INVALID_UTF8,
                                     PATCH_PREFLIGHT_FAILED, TOOL_ERROR, RawError)
from raw_tui.tools import approval_preview, fsread
from raw_tui.tools.builtin.write_file.obstacles import file_key, refuse_existing, refuse_obstacles
from raw_tui.tools.patch import (BOM, AddFile, DeleteFile, check_repeated, lexical_abspath,
                                 parse_patch, targets)
from raw_tui.tools.patch_apply import apply_hunks, split_endings

MAX_FILE_BYTES = 64 * 1024 * 1024  # the largest file whose content the handler reads


Reader = Callable[[str], "bytes | None"]


def read_for_edit(path: str) -> bytes | None:
    """The handler's reads: regular files only, at most MAX_FILE_BYTES."""
    return fsread.read_regular(path, MAX_FILE_BYTES)


def read_for_preview(path: str) -> bytes | None:
    """The preview's reads: regular files only, at most the preview's bound."""
    return fsread.read_regular(path, approval_preview.MAX_READ_BYTES)


@dataclass
class Plan:
    """The files as the call leaves them, before anything is written: path -> new bytes, or
    None for a deletion. `order` is first-touched order; `originals` what was read from disk.
    Every target is checked to be a regular file (or nothing) before it is planned."""

    read_file: Reader
    cwd: str = "/"
    code: str = TOOL_ERROR  # of a refusal: PATCH_PREFLIGHT_FAILED for the patch form
    state: dict[str, bytes | None] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    originals: dict[str, bytes | None] = field(default_factory=dict)
    names: dict[tuple[Any, ...], str] = field(default_factory=dict)  # file_key -> first path
    modes: dict[str, int] = field(default_factory=dict)  # path -> the mode it is written with
    checked: set[str] = field(default_factory=set)
    fresh: set[str] = field(default_factory=set)  # paths a patch creates: nothing may be there

    def read(self, path: str) -> bytes | None:
        if path in self.state:
            return self.state[path]
        if path not in self.originals:
            self.check_path(path)
            self.originals[path] = self.read_file(path)
        return self.originals[path]

    def exists(self, path: str) -> bool:
        if path in self.state:
            return self.state[path] is not None
        if path in self.originals:
            return self.originals[path] is not None
        self.check_path(path)
        return fsread.regular_or_missing(path)

    def set(self, path: str, data: bytes | None) -> None:
        if path not in self.state:
            self.exists(path)  # a directory, FIFO or device is refused before anything is written
            self.check_one_name(path)
            self.order.append(path)
        self.state[path] = data

    def check_path(self, path: str) -> None:
        """No symbolic link and no non-directory on the way to `path` (once per path)."""
        if path not in self.checked:
            refuse_obstacles(path, self.cwd, self.code)
            self.checked.add(path)

    def check_one_name(self, path: str) -> None:
        """Two names of one file (a symbolic link and its target, hard links) in one call would
        be planned as two files and committed as one: the preview would not be the write."""
        key = file_key(path)
        other = self.names.setdefault(key, path)
        if other != path:
            raise RawError(TOOL_ERROR, f"{other} and {path} are the same file; name it once")


def plan_call(args: Any, cwd: str, read_file: Reader) -> Plan:
    """Every file's new content, computed and checked without writing anything: what the
    handler writes and what the preview shows (the same function for both)."""
    plan = Plan(read_file, cwd, PATCH_PREFLIGHT_FAILED if "patch" in args else TOOL_ERROR)
    if "patch" in args:
        plan_patch(plan, args["patch"], cwd)
    else:
        for op in args["operations"]:
            plan_operation(plan, op, cwd)
    return plan


def plan_operation(plan: Plan, op: Any, cwd: str) -> None:
    path = lexical_abspath(op["path"], cwd)
    mode = op["mode"]
    if mode == "overwrite" and op.get("expected_sha256") is None:
        plan.check_path(path)
        plan.set(path, op["content"].encode())  # the old content is not needed
        return
    current = plan.read(path)
    expected = op.get("expected_sha256")
    if mode != "replace_lines":
        check_hash(path, current, expected)
    if mode == "overwrite":
        plan.set(path, op["content"].encode())
    elif mode == "append":
        plan.set(path, (current or b"") + op["content"].encode())
    elif mode == "replace_text":
        text = existing_text(path, current)
        plan.set(path, replace_text(text, op["old_text"], op["new_text"], path).encode())
    else:
        text = existing_text(path, current)
        start, end = op["start_line"], op["end_line"]
        new, span = replace_lines(text, start, end, op["content"], path)
        check_hash(path, current, expected, span=(start, end, span.encode()))
        plan.set(path, new.encode())


def check_hash(path: str, current: bytes | None, expected: str | None,
               span: tuple[int, int, bytes] | None = None) -> None:
    """`expected` is the file's SHA-256, or (`span`: replace_lines) that of the lines it
    replaces, as Raw's is."""
    if expected is None:
        return
    if current is None:
        raise RawError(TOOL_ERROR, f"expected_sha256 does not match: {path} does not exist")
    actual = hashlib.sha256(current).hexdigest()
    if actual == expected.lower():
        return
    if span is None:
        raise RawError(TOOL_ERROR, f"expected_sha256 does not match {path} (it is {actual})")
    start, end, data = span
    lines = hashlib.sha256(data).hexdigest()
    if lines != expected.lower():
        raise RawError(TOOL_ERROR, f"expected_sha256 does not match lines {start}-{end} of "
                                   f"{path} (they hash to {lines}; the whole file to {actual})")


def existing_text(path: str, current: bytes | None) -> str:
    if current is None:
        raise RawError(TOOL_ERROR, f"{path} does not exist")
    try:
        return current.decode("utf-8")
    except UnicodeDecodeError:
        raise RawError(TOOL_ERROR, f"{path} is not UTF-8 text") from None


def replace_text(text: str, old: str, new: str, path: str) -> str:
    count = text.count(old)
    if count == 0:
        raise RawError(TOOL_ERROR, f"old_text not found in {path}")
    if count > 1:
        raise RawError(TOOL_ERROR, f"old_text occurs {count} times in {path}; "
                                   "include more context to make it unique")
    return text.replace(old, new, 1)


def replace_lines(text: str, start: int, end: int, content: str, path: str) -> tuple[str, str]:
    """The text with lines start..end replaced by `content`, and the text of those lines
    (what Raw's `expected_sha256` hashes). A byte order mark stays; `content` without a final
    newline gets the replaced (else the preceding) line's ending, unless it becomes the
    file's last line where the file had no final newline."""
    bom = BOM if text.startswith(BOM) else ""
    lines = [line + ending for line, ending in split_endings(text[len(bom):])]
    n = len(lines)
    if start > n + 1 or end > n:
        raise RawError(TOOL_ERROR, f"lines {start}-{end} are out of range: {path} has {n} lines")
    span = (bom if start == 1 else "") + "".join(lines[start - 1:end])
    ending = "\n"
    for line in ([lines[end - 1]] if end >= start else []) + lines[:start - 1][::-1] + lines:
        if line.endswith("\n"):
            ending = "\r\n" if line.endswith("\r\n") else "\n"
            break
    no_final_newline = bool(lines) and not lines[-1].endswith("\n")
    if start == n + 1 and no_final_newline:
        lines[-1] += ending  # inserting after a last line that had no newline
    if content and not content.endswith("\n") and not (end == n and no_final_newline):
        content += ending  # the file still ends without a newline when it did
    return bom + "".join(lines[: start - 1]) + content + "".join(lines[end:]), span


def patch_source(plan: Plan, path: str, verb: str) -> str:
    """The text of a file a patch updates or deletes: it must exist and be UTF-8 text
    without NUL bytes (Raw: `patch_binary_source`, `patch_invalid_utf8`)."""
    current = plan.read(path)
    if current is None:
        raise RawError(PATCH_PREFLIGHT_FAILED, f"cannot {verb} {path}: no such file")
    if b"\0" in current:
        raise RawError(PATCH_PREFLIGHT_FAILED, f"{PATCH_BINARY_SOURCE}: cannot {verb} {path}: it "
                                               "holds NUL bytes; a patch edits text files")
    try:
        return current.decode("utf-8")
    except UnicodeDecodeError:
        raise RawError(PATCH_PREFLIGHT_FAILED, f"{PATCH_INVALID_UTF8}: cannot {verb} {path}: it "
                                               "is not UTF-8 text") from None


def plan_patch(plan: Plan, text: str, cwd: str) -> None:
    ops = parse_patch(text)
    check_repeated([lexical_abspath(p, cwd) for p, _ in targets(ops)])
    for op in ops:
        path = lexical_abspath(op.path, cwd)
        if isinstance(op, AddFile):
            plan.check_path(path)
            refuse_existing(path, f"cannot add {path}: it exists; Add File makes a new file "
                                  "(update it, or delete it first)")
            plan.fresh.add(path)
            plan.set(path, op.content.encode())
            continue
        if isinstance(op, DeleteFile):
            patch_source(plan, path, "delete")
            plan.set(path, None)
            continue
        source = patch_source(plan, path, "update")
        destination = None if op.move_to is None else lexical_abspath(op.move_to, cwd)
        if destination is not None:  # checked before the hunks, as Raw does
            plan.check_path(destination)
            refuse_existing(destination, f"cannot move {path} to {destination}: it exists; "
                                         "Move to names a new file")
            plan.fresh.add(destination)
        new = apply_hunks(source, op.chunks, path, op.no_newline).encode()
        if destination is None:
            plan.set(path, new)
        else:
            plan.set(path, None)
            plan.set(destination, new)
            try:
                plan.modes[destination] = os.stat(path).st_mode & 0o7777
            except OSError as err:
                raise RawError(TOOL_ERROR, f"cannot move {path}: {err.strerror or err}") from None

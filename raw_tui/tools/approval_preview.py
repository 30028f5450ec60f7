"""The approval preview: what a call would change, computed by the engine before it asks.

A tool folder may define `preview(args, ctx)` beside `describe_effects`. Dispatch runs it
only when policy decided `ask` and the call will be asked, in a daemon thread with a deadline
(`run_preview`), and carries the result on the `approval_request` event (`bus.ApprovalPreview`).

`preview` returns `{"files": [{"path", "operation", "before"?, "after"?, "diff"?, "note"?,
"before_sha256"?}]}` (or a `bus.ApprovalPreview`): for each file the whole text before and
after the call ("" for a file that does not exist before, or no longer exists after), or a
one-line `note` saying why there is none; `before_sha256` the hash of the bytes it found
(what a tool's handler compares when the note shows no content). The engine does the rest, the same way for every tool (`shape`): the
unified diff (lines split on `\\n` only, as write_file counts them), the bounds below, the
symbolic links each path passes through. A preview that raises, returns something else or
misses the deadline gives every file of the effects the note `no preview: ...`; it never
fails the call.

Every bound of the preview is here.
"""

from __future__ import annotations

import difflib
import inspect
import os
from typing import Any, Callable

import msgspec
import re2

from ..protocol.bus import ApprovalPreview, FilePreview
from ..jsonstrict import without_lone_surrogates
from .patch import split_lines
from .worker import Overdue, describe, run_in_worker

DEADLINE_S = 3.0  # the preview is ready by then or replaced by notes
MAX_READ_BYTES = 1024 * 1024  # what a tool's preview reads of one file (larger: a note)
MAX_TEXT_CHARS = 16 * 1024  # before/after are carried when both are at most this long
MAX_DIFF_LINES = 400  # per file
MAX_DIFF_CHARS = 64 * 1024  # per file
MAX_TOTAL_CHARS = 256 * 1024  # every text of one preview together (what one event carries)
MAX_FILES = 128
MIN_DIFF_CHARS = 1024  # with less of the total left, a file gets a note instead of a diff
MAX_NOTE_CHARS = 300
MAX_PATH_CHARS = 4096  # PATH_MAX: a longer path names no file (clipped)
MAX_OPERATION_CHARS = 64
MAX_NAMES_CHARS = 64 * 1024  # paths, operations, links and notes of one preview together
NOT_READY = "not ready after"  # the note of a preview that missed its deadline
SHA256_HEX = re2.compile("[0-9a-f]{64}")  # a file's `before_sha256` (anything else: dropped)


# ---------------------------------------------------------------------------- running

async def run_preview(preview: Callable[[Any, Any], Any] | None, args: Any, ctx: Any,
                      effects: Any, *, deadline: float = DEADLINE_S) -> ApprovalPreview:
    """`compute` in a daemon worker thread (raw_tui.tools.worker), off the event loop: a
    preview that blocks can neither freeze the session nor keep the process alive. Past
    `deadline`, every file gets a note (the thread is left to finish on its own)."""
    try:
        return await run_in_worker(compute, preview, args, ctx, effects, deadline_s=deadline)
    except Overdue:
        return failed(effects, f"{NOT_READY} {deadline:g} s")


def unfinished(preview: ApprovalPreview) -> bool:
    """True for a preview replaced by notes because it missed its deadline."""
    return all(file.note.startswith(f"no preview: {NOT_READY} ") for file in preview.files)


def compute(preview: Callable[[Any, Any], Any] | None, args: Any, ctx: Any,
            effects: Any) -> ApprovalPreview:
    """The preview of one call, shaped and bounded; never raises. Without a `preview`
    function, the effects' files with their symbolic-link warnings."""
    if preview is None:
        return shape([FilePreview(path=path, operation=op) for path, op in effect_files(effects)])
    try:
        value = preview(args, ctx)
        if inspect.isawaitable(value):
            if inspect.iscoroutine(value):
                value.close()
            raise TypeError("preview must return synchronously")
        files = value.files if isinstance(value, ApprovalPreview) \
            else msgspec.convert(value, ApprovalPreview).files
    except BaseException as err:  # a preview never fails the call (nor ends raw-tui:
        # it runs in a worker thread, so even SystemExit and KeyboardInterrupt are its own)
        return failed(effects, one_line(reason(err)))
    return shape(files)


def reason(err: BaseException) -> str:
    """What a failed preview says: a RawError's message, an exception's text, else
    `TYPE: MESSAGE`."""
    message = getattr(err, "message", None)
    if isinstance(message, str) and message:
        return message
    if isinstance(err, Exception):
        try:
            text = str(err)
        except Exception:
            text = ""
        if text:
            return text
    return describe(err)


def failed(effects: Any, reason: str) -> ApprovalPreview:
    """Every file of the effects with the note `no preview: REASON` (one entry with no path
    when the effects name no files)."""
    note = clip(f"no preview: {reason}", MAX_NOTE_CHARS)
    files = [FilePreview(path=path, operation=op, note=note)
             for path, op in effect_files(effects)] or [FilePreview(path="", operation="",
                                                                    note=note)]
    return shape(files)


def effect_files(effects: Any) -> list[tuple[str, str]]:
    """(path, operation) of each `files[*]` entry of effects shaped like write_file's."""
    if not isinstance(effects, dict) or not isinstance(effects.get("files"), (list, tuple)):
        return []
    return [(entry["path"], str(entry.get("operation", "")))
            for entry in effects["files"]
            if isinstance(entry, dict) and isinstance(entry.get("path"), str)]


# ---------------------------------------------------------------------------- shaping

def shape(files: list[FilePreview]) -> ApprovalPreview:
    """Diffs computed, every text bounded (per file and together), symlinks found."""
    out: list[FilePreview] = []
    budget, names = MAX_TOTAL_CHARS, MAX_NAMES_CHARS
    for index, item in enumerate(files[:MAX_FILES]):
        if names <= 0:  # the names count too: the event stays bounded
            out.append(FilePreview(path="", operation="", note=f"no preview: {len(files) - index}"
                                   " more files (the preview is over its size limit)"))
            return ApprovalPreview(files=out)
        entry, budget = shape_file(item, budget)
        names -= len(entry.path) + len(entry.operation) + len(entry.note) \
            + sum(map(len, entry.symlinks))
        out.append(entry)
    if len(files) > MAX_FILES:
        out.append(FilePreview(path="", operation="",
                               note=f"no preview: {len(files) - MAX_FILES} more files"))
    return ApprovalPreview(files=out)


def shape_file(item: FilePreview, budget: int) -> tuple[FilePreview, int]:
    path = clip(encodable(item.path), MAX_PATH_CHARS)
    links = symlink_hops(path)
    item = msgspec.structs.replace(item, operation=clip(encodable(item.operation),
                                                        MAX_OPERATION_CHARS))
    digest = item.before_sha256 if SHA256_HEX.fullmatch(item.before_sha256) else ""
    if item.note or (item.diff == "" and (item.before is None or item.after is None)):
        note = clip(one_line(encodable(item.note)), MAX_NOTE_CHARS)
        return FilePreview(path=path, operation=item.operation, note=note, symlinks=links,
                           before_sha256=digest), budget - len(note)
    if budget < MIN_DIFF_CHARS:
        return FilePreview(path=path, operation=item.operation, symlinks=links,
                           note="no preview: the preview is over its size limit",
                           before_sha256=digest), budget
    before = None if item.before is None else encodable(item.before)
    after = None if item.after is None else encodable(item.after)
    diff = encodable(item.diff) if item.diff else "".join(unified_diff(before, after, path))
    diff = clip_diff(diff, min(MAX_DIFF_CHARS, budget))
    budget -= len(diff)
    carry = before is not None and after is not None and len(before) <= MAX_TEXT_CHARS \
        and len(after) <= MAX_TEXT_CHARS and len(before) + len(after) <= budget
    if carry:
        budget -= len(before) + len(after)
    else:
        before = after = None
    return FilePreview(path=path, operation=item.operation, before=before, after=after,
                       diff=diff, symlinks=links, before_sha256=digest), budget


def unified_diff(before: str, after: str, path: str, *, created: bool = False,
                 removed: bool = False) -> list[str]:
    """A unified diff of two texts split on `\\n` only (never `str.splitlines`, which also
    breaks at `\\r`, `\\f`, U+2028 ...: the lines shown are the lines the tool counts).
    A file the call creates is diffed from `/dev/null`, one it removes to it (as git does)."""
    out = []
    old, new = ("/dev/null" if created else path), ("/dev/null" if removed else path)
    for line in difflib.unified_diff(split_lines(before), split_lines(after), old, new):
        if line.endswith("\n"):
            out.append(line)
        else:
            out += [line + "\n", "\\ No newline at end of file\n"]
    if not out and (created or removed):  # an empty file: no line, but a change all the same
        out = [f"--- {old}\n", f"+++ {new}\n"]
    return out


def clip_diff(diff: str, max_chars: int) -> str:
    """At most MAX_DIFF_LINES lines and `max_chars` characters, with a last line saying how
    many lines were left out."""
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    kept, size = [], 0
    for line in lines[:MAX_DIFF_LINES]:
        if size + len(line) + 1 > max_chars - 40:  # room for the last line
            break
        kept.append(line)
        size += len(line) + 1
    if len(kept) < len(lines):
        kept.append(f"… {len(lines) - len(kept)} more lines")
    return "\n".join(kept)


def symlink_hops(path: str) -> list[str]:
    """Every prefix of the lexical, absolute `path` (itself included) that is a symbolic
    link (checked with lstat: nothing is opened)."""
    if not os.path.isabs(path):
        return []
    parts = path.split(os.sep)
    hops = []
    for i in range(2, len(parts) + 1):
        prefix = os.sep.join(parts[:i])
        try:
            if prefix and os.path.islink(prefix):
                hops.append(prefix)
        except (OSError, ValueError):
            break
    return hops


def one_line(text: str) -> str:
    """Every run of whitespace (line breaks of every kind included) as one space."""
    return " ".join(text.split())


def clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def encodable(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD, so that the event can be stored."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return without_lone_surrogates(text)
    return text

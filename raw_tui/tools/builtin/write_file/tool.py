"""builtin/write_file: change files by a list of operations or by a patch (docs/gate.md).

Arguments: exactly one of

- `operations`: 1–16 objects, each `{mode, path, ..., expected_sha256?}` where `mode` names
  the operation (the contract's "each with `mode`"):
    `overwrite {path, content}`  the file becomes `content` (created if missing);
    `append {path, content}`     `content` is added at the end (created if missing);
    `replace_text {path, old_text, new_text}`  `old_text` must occur exactly once;
    `replace_lines {path, start_line, end_line, content}`  lines start..end (1-based,
        inclusive, counted as read_file numbers them) become `content`; `end_line =
        start_line - 1` inserts before `start_line`; empty `content` deletes the lines.
  `expected_sha256` (hex) must equal the SHA-256 of the file as that operation finds it
  (after earlier operations of the same call); a missing file never matches. For
  `replace_lines` it may also be, as in Raw, the SHA-256 of the lines it replaces (their
  bytes with their line endings, a byte order mark included for line 1; nothing for an
  insertion).
- `patch`: a string in the `*** Begin Patch` grammar (raw_tui.tools.patch). A patch edits
  text: a file it updates or deletes must be UTF-8 without NUL bytes. A patch that cannot
  be applied is code `patch_preflight_failed` (Raw's), its message led by Raw's reason.

Paths are relative to `ctx.cwd` or absolute. Parent directories are created. A file that
exists keeps its permission bits (a moved file takes its source's); a new one gets
0666 & ~umask; a byte order mark and each line's ending stay as they were. No write passes
through a symbolic link (raw_tui.tools.fslinks): a path with a link in it, the file itself
or a directory on the way (the working directory and its ancestors excepted), is refused
(`patch_symlink_path: ...`; code `patch_preflight_failed` in the patch form as in Raw,
`tool_error` for operations), in the preview as in the handler, before anything is read.

The call is all-or-nothing as far as the filesystem allows: every new content is computed and
every check made (hashes, old_text, hunks, files to update or delete exist) before anything
is written; then every file is written to a temp file beside it and fsynced, the temps are
renamed into place, and deletions come last. A failure before the renames changes nothing.
A patch's `*** Add File:` and `*** Move to:` make new files: anything already at that path is
refused (`patch_destination_exists: ...`, as Raw), when planned and again before the renames.
Every target must be a regular file or nothing: a directory, FIFO, device or socket is
refused before it is read or written (raw_tui.tools.fsread); a file whose content the call
needs is read only up to MAX_FILE_BYTES.

Preview: `preview(args, ctx)` is `plan_call`, the one function whose result the handler
writes, run with reads bounded to the approval preview's limit; it returns each file's text
before and after (or a `no preview: ...` note) and raises what the handler would raise.
When the user approved a preview with a diff (`ctx.preview`), the handler writes only if the
preview of its own plan is still that one (`check_as_approved`); else it writes nothing.

Effects (`condition_sources: ["effects"]`): `{files: [{path, operation}]}`, at most 128; paths
absolute and lexically normalized against `ctx.cwd` (symlinks not resolved), first-seen
order, the same path and operation once. The same target twice in one patch (compared
lexically as written in `validate_args`, as absolute paths in `describe_effects` and the
handler) is `patch_repeated_target`.
"""

from __future__ import annotations

from raw_tui.tools.strict import strict_error

import hashlib
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from raw_tui.protocol.errors import (CANCELLED, EFFECTS_ERROR, PATCH_BINARY_SOURCE,
                                     PATCH_DESTINATION_EXISTS, PATCH_INVALID_UTF8,
                                     PATCH_PREFLIGHT_FAILED, TOOL_ERROR, RawError)
from raw_tui.tools import approval_preview, fsatomic, fslinks, fsread
from raw_tui.tools.patch import (BOM, AddFile, DeleteFile, PatchSyntaxError, check_repeated,
                                 lexical_abspath, parse_patch, targets)
from raw_tui.tools.patch_apply import apply_hunks, split_endings

MAX_FILE_BYTES = 64 * 1024 * 1024  # the largest file whose content the handler reads
MAX_OPERATIONS = 16
MAX_EFFECTS = 128
COMMON = {"mode", "path", "expected_sha256"}
FIELDS = {  # mode -> the fields it needs besides `mode` and `path`
    "overwrite": ("content",),
    "append": ("content",),
    "replace_text": ("old_text", "new_text"),
    "replace_lines": ("start_line", "end_line", "content"),
}


# ---------------------------------------------------------------------------- validate_args

def validate_args(args: Any) -> str | None:
    problem = strict_error('write_file', args)
    if problem:
        return problem
    """Checks the schema cannot say: which fields each mode takes, one of operations/patch,
    the patch grammar, repeated patch targets and the effects limit."""
    if not isinstance(args, dict):
        return None  # the schema reports it
    has_ops, has_patch = "operations" in args, "patch" in args
    if has_ops == has_patch:
        return "give exactly one of operations or patch"
    if has_patch:
        return check_patch_arg(args["patch"])
    return check_operations(args["operations"])


def check_patch_arg(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    try:
        pairs = targets(parse_patch(text))
    except PatchSyntaxError as err:
        return f"patch: {err.message}"
    try:
        check_repeated([os.path.normpath(path) for path, _ in pairs])
    except RawError as err:
        return f"patch: {err.message}"
    if len(pairs) > MAX_EFFECTS:
        return f"patch: it names {len(pairs)} files; at most {MAX_EFFECTS}"
    return None


def check_operations(ops: Any) -> str | None:
    if not isinstance(ops, list):
        return None
    if not 1 <= len(ops) <= MAX_OPERATIONS:
        return f"operations: {len(ops)} items; give 1 to {MAX_OPERATIONS}"
    for i, op in enumerate(ops):
        problem = check_operation(op) if isinstance(op, dict) else None
        if problem:
            return f"operations[{i}]: {problem}"
    return None


def check_operation(op: dict[str, Any]) -> str | None:
    mode = op.get("mode")
    if mode not in FIELDS:
        return None  # the schema's enum reports it
    path = op.get("path")
    if isinstance(path, str) and (not path or "\0" in path):
        return "path is empty or holds a NUL character"
    wanted = FIELDS[mode]
    missing = [f for f in wanted if f not in op]
    if missing:
        return f"{mode} needs {', '.join(missing)}"
    extra = sorted(set(op) - COMMON - set(wanted))
    if extra:
        return f"{mode} does not take {', '.join(extra)}"
    sha = op.get("expected_sha256")
    if isinstance(sha, str) and not is_sha256(sha):
        return "expected_sha256 is not 64 hex digits"
    if mode == "replace_text" and op.get("old_text") == "":
        return "old_text is empty"
    if mode == "replace_lines":
        return check_line_range(op.get("start_line"), op.get("end_line"))
    return None


def check_line_range(start: Any, end: Any) -> str | None:
    if not (isinstance(start, int) and isinstance(end, int)):
        return None
    if start < 1:
        return "start_line must be 1 or more"
    if end < start - 1:
        return "end_line must be start_line - 1 (insert) or more"
    return None


def is_sha256(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text)


# ---------------------------------------------------------------------------- effects

def describe_effects(args: Any, ctx: Any) -> dict[str, Any]:
    """`{files: [{path, operation}]}`; pure: never touches the filesystem."""
    pairs = effect_pairs(args, ctx.cwd)
    files: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for pair in pairs:
        if pair not in seen:
            seen.add(pair)
            files.append({"path": pair[0], "operation": pair[1]})
    if len(files) > MAX_EFFECTS:
        raise RawError(EFFECTS_ERROR, f"the call names {len(files)} files; at most {MAX_EFFECTS}")
    return {"files": files}


def effect_pairs(args: Any, cwd: str) -> list[tuple[str, str]]:
    if "patch" in args:
        pairs = [(lexical_abspath(p, cwd), op) for p, op in targets(parse_patch(args["patch"]))]
        check_repeated([p for p, _ in pairs])
        return pairs
    return [(lexical_abspath(op["path"], cwd), "write") for op in args["operations"]]


# ---------------------------------------------------------------------------- planning

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


def refuse_obstacles(path: str, cwd: str, code: str) -> None:
    found = fslinks.obstacle(path, cwd)
    if found is None:
        return
    reason, where, detail = found
    if reason == fslinks.SYMLINK:
        raise RawError(code, f"{reason}: {where} is a symbolic link (to {detail}); write_file "
                             "does not write through links: name the path it points to")
    raise RawError(code, f"{reason}: cannot write {path}: {where} is {detail}")


def file_key(path: str) -> tuple[Any, ...]:
    """What identifies the file at `path`: its device and inode when it exists, else the path
    with every symbolic link resolved."""
    try:
        info = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path))
    return ("inode", info.st_dev, info.st_ino)


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


# ---------------------------------------------------------------------------- handler

def handler(args: Any, ctx: Any) -> str:
    plan = plan_call(args, ctx.cwd, read_for_edit)
    check_as_approved(plan, args, ctx)
    if ctx.cancelled.is_set():
        raise RawError(CANCELLED, "cancelled before writing")
    commit(plan)
    return summary(plan)


# ---------------------------------------------------------------------------- preview

def check_as_approved(plan: Plan, args: Any, ctx: Any) -> None:
    """When the user approved a preview, the files must still be as they were then: the
    preview of the handler's own plan (its reads, bounded as the preview's were) must equal
    the one approved, else nothing is written (the disk changed while the modal was open:
    replace_lines would rewrite a line the user never saw, an edit shown as failing would
    succeed). A preview that missed its deadline was approved blind: nothing to compare."""
    approved = getattr(ctx, "preview", None)
    if approved is None or approval_preview.unfinished(approved):
        return

    def as_read(path: str) -> bytes | None:
        data = plan.originals[path] if path in plan.originals else read_for_preview(path)
        if data is not None and len(data) > approval_preview.MAX_READ_BYTES:
            raise RawError(TOOL_ERROR, f"{path} is {len(data)} bytes; at most "
                                       f"{approval_preview.MAX_READ_BYTES} can be read")
        return data

    def digest(path: str) -> str:  # of the bytes the handler's plan starts from
        return sha256_of(plan.originals[path]) if path in plan.originals else disk_sha256(path)

    now = approval_preview.compute(lambda a, c: preview_with(a, c.cwd, as_read, digest), args,
                                   ctx, ctx.effects)
    if now != approved:
        changed = [old.path for old, new in zip(approved.files, now.files) if old != new]
        name = changed[0] if changed else "a file"
        raise RawError(TOOL_ERROR, f"{name} changed since its preview was approved; "
                                   "nothing written")


def preview(args: Any, ctx: Any) -> dict[str, Any]:
    """`{files: [{path, operation, before, after} | {path, operation, note}]}`: the plan the
    handler would write (plan_call with bounded reads), file by file. Raises what the
    handler would raise (the engine turns it into a note on every file)."""
    return preview_with(args, ctx.cwd, read_for_preview, disk_sha256)


def preview_with(args: Any, cwd: str, read_file: Reader,
                 digest: Callable[[str], str]) -> dict[str, Any]:
    """Each file's entry carries `before_sha256`, the hash of what it holds (`digest` where
    the plan read nothing of it): a note (a binary file, a file past the preview's read
    bound, a plan that fails) then still stands for one content, not for any of its size."""
    pairs = effect_pairs(args, cwd)
    try:
        plan = plan_call(args, cwd, read_file)
    except RawError as err:  # the note on every file, as the engine gives it (`failed`)
        note = f"no preview: {approval_preview.one_line(err.message)}"
        return {"files": [{"path": path, "operation": op, "note": note,
                           "before_sha256": digest(path)}
                          for path, op in dict.fromkeys(pairs)]}
    operations: dict[str, str] = {}
    for path, operation in pairs:
        operations.setdefault(path, operation)
    return {"files": [file_preview(plan, path, operations.get(path, "write"), digest)
                      for path in plan.order]}


def sha256_of(data: bytes | None) -> str:
    return "" if data is None else hashlib.sha256(data).hexdigest()


def disk_sha256(path: str) -> str:
    """The hash of the regular file at `path` as the handler would read it ("" for no file,
    or one it could not read)."""
    try:
        return sha256_of(read_for_edit(path))
    except RawError:
        return ""


def file_preview(plan: Plan, path: str, operation: str,
                 digest: Callable[[str], str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path, "operation": operation}
    try:
        before = plan.originals[path] if path in plan.originals else plan.read_file(path)
    except RawError as err:
        return {**entry, "note": f"no preview: {err.message}", "before_sha256": digest(path)}
    entry["before_sha256"] = sha256_of(before)
    after = plan.state[path]
    try:
        entry["before"] = (before or b"").decode("utf-8")
        entry["after"] = (after or b"").decode("utf-8")
    except UnicodeDecodeError:
        return {**entry, "note": f"no preview: {path} is not UTF-8 text "
                                 f"({len(before or b'')} bytes before, {len(after or b'')} after)"}
    if (before is None) != (after is None):  # created or removed: diffed from/to /dev/null
        entry["diff"] = "".join(approval_preview.unified_diff(
            entry["before"], entry["after"], path, created=before is None,
            removed=after is None))
    return entry


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


def refuse_existing(path: str, detail: str) -> None:
    """A patch's Add File and Move to make a new file: anything already at `path` (a file, a
    directory, a link) is refused, as Raw's `patch_destination_exists`."""
    if os.path.lexists(path):
        raise RawError(PATCH_PREFLIGHT_FAILED, f"{PATCH_DESTINATION_EXISTS}: {detail}")


def commit(plan: Plan) -> None:
    """Stage every write (nothing changes if one fails), rename them into place, then delete.
    Just before staging and again before the renames, every path is checked once more for a
    symbolic link on its way (one may have appeared since the plan)."""
    staged: list[fsatomic.StagedWrite] = []
    try:
        for path in plan.order:
            data = plan.state[path]
            if data is not None:
                refuse_obstacles(path, plan.cwd, plan.code)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                refuse_obstacles(path, plan.cwd, plan.code)
                staged.append(fsatomic.stage_write(path, data, plan.modes.get(path)))
        for path in plan.order:
            refuse_obstacles(path, plan.cwd, plan.code)
            if path in plan.fresh:
                refuse_existing(path, f"cannot write {path}: it appeared since the patch was "
                                      "planned; nothing written")
    except BaseException:
        fsatomic.discard_all(staged)
        raise
    fsatomic.commit_all(staged)
    for path in plan.order:
        if plan.state[path] is None:
            os.unlink(path)


def summary(plan: Plan) -> str:
    lines = []
    for path in plan.order:
        data = plan.state[path]
        lines.append(f"deleted {path}" if data is None else f"wrote {path} ({len(data)} bytes)")
    return "\n".join(lines)


def summarize(args: Any, ctx: Any) -> str:
    """`write_file note.txt` (+N more), paths under the cwd relative; an operation other than
    a write named (`delete old.txt`, `rename_source a.txt`): the call's line in the chat."""
    from raw_tui.tools.summary import relative

    files = (ctx.effects or {}).get("files") or []
    names = [(relative(f["path"], ctx.cwd) if f.get("operation") == "write"
              else f"{f.get('operation')} {relative(f['path'], ctx.cwd)}") for f in files]
    shown = ", ".join(names[:3])
    more = f" (+{len(names) - 3} more)" if len(names) > 3 else ""
    return f"write_file {shown}{more}"

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

The parts, each in its module of this folder: effects.py (`describe_effects`), planning.py
(`plan_call`, MAX_FILE_BYTES), obstacles.py (links, non-regular files, existing
destinations), preview.py (`preview`, `check_as_approved`), commit.py (the writes).
"""

from __future__ import annotations

from raw_tui.tools.strict import strict_error

import os
from typing import Any

from raw_tui.protocol.errors import CANCELLED, RawError
from raw_tui.tools.builtin.write_file.commit import commit, summary
# describe_effects and preview are the entry's (the loader finds them in this module)
from raw_tui.tools.builtin.write_file.effects import MAX_EFFECTS, describe_effects
from raw_tui.tools.builtin.write_file.planning import plan_call, read_for_edit
from raw_tui.tools.builtin.write_file.preview import check_as_approved, preview
from raw_tui.tools.patch import PatchSyntaxError, check_repeated, parse_patch, targets

MAX_OPERATIONS = 16
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


# ---------------------------------------------------------------------------- handler


def handler(args: Any, ctx: Any) -> str:
    plan = plan_call(args, ctx.cwd, read_for_edit)
    check_as_approved(plan, args, ctx)
    if ctx.cancelled.is_set():
        raise RawError(CANCELLED, "cancelled before writing")
    commit(plan)
    return summary(plan)


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

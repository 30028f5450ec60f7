"""write_file's preview: the plan the handler would write, file by file, and the check that
what the user approved is still what the handler's own plan writes (`check_as_approved`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

from raw_tui.protocol.errors import TOOL_ERROR, RawError
from raw_tui.tools import approval_preview
from raw_tui.tools.builtin.write_file.effects import effect_pairs
from raw_tui.tools.builtin.write_file.planning import (Plan, Reader, plan_call,
                                                       read_for_edit, read_for_preview)


def check_as_approved(plan: Plan, args: Any, ctx: Any) -> None:
    """When the user approved a preview, the files must still be as they were then: the
    preview of the handler's own plan (its reads, bounded as the preview's were) must equal
    the one approved, else nothing is written (the disk changed while the modal was open:
    replace_lines would rewrite a line the user never saw, an edit shown as failing would
    succeed). A preview that missed its deadline was approved blind: nothing to compare."""
    approved = ctx.preview
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

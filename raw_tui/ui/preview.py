"""What the approval modal shows besides the raw arguments: each intended effect with a
symbolic-link warning, and a diff preview of `write_file` computed without writing anything.
Plain Python (no textual): reading files is allowed here, writing never happens."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import Any

from ..tools.patch import AddFile, DeleteFile, apply_hunks, lexical_abspath, parse_patch

MAX_PREVIEW_BYTES = 512 * 1024  # files larger than this are not diffed
MAX_DIFF_LINES = 400


@dataclass(frozen=True)
class EffectLine:
    operation: str
    path: str
    symlinks: tuple[str, ...]  # prefixes of `path` that are symbolic links


def effect_lines(effects: Any) -> list[EffectLine]:
    """`{files: [{path, operation}]}` as lines; other effect shapes give no lines."""
    if not isinstance(effects, dict):
        return []
    out = []
    for entry in effects.get("files") or ():
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            path = entry["path"]
            out.append(EffectLine(str(entry.get("operation", "?")), path, symlink_hops(path)))
    return out


def symlink_hops(path: str) -> tuple[str, ...]:
    """Every prefix of the lexical `path` (itself included) that is a symbolic link."""
    if not os.path.isabs(path):
        return ()
    parts = path.split(os.sep)
    hops = []
    for i in range(2, len(parts) + 1):
        prefix = os.sep.join(parts[:i])
        try:
            if prefix and os.path.islink(prefix):
                hops.append(prefix)
        except (OSError, ValueError):
            break
    return tuple(hops)


def is_write_file(identity: str, name: str) -> bool:
    return identity.endswith("/write_file") or identity == "write_file" or name == "write_file"


def write_file_diff(arguments: Any, cwd: str) -> str:
    """A unified diff of what `write_file` would do, computed in memory. Never raises: a
    problem becomes a line of the preview."""
    try:
        if isinstance(arguments, dict) and isinstance(arguments.get("patch"), str):
            return _patch_diff(arguments["patch"], cwd)
        if isinstance(arguments, dict) and isinstance(arguments.get("operations"), list):
            return _operations_diff(arguments["operations"], cwd)
    except Exception as err:  # a preview must never take the modal down
        return f"(no preview: {err})"
    return ""


def _read(path: str) -> str | None:
    try:
        if os.path.getsize(path) > MAX_PREVIEW_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return ""
    except OSError:
        return None


def _unified(old: str, new: str, before: str, after: str) -> list[str]:
    lines = list(difflib.unified_diff(old.splitlines(keepends=True),
                                      new.splitlines(keepends=True), before, after, n=2))
    return [line if line.endswith("\n") else line + "\n" for line in lines]


def _clip(lines: list[str]) -> str:
    if len(lines) > MAX_DIFF_LINES:
        more = len(lines) - MAX_DIFF_LINES
        lines = lines[:MAX_DIFF_LINES] + [f"… {more} more lines\n"]
    return "".join(lines).rstrip("\n")


def _operations_diff(operations: list, cwd: str) -> str:
    state: dict[str, str | None] = {}
    order: list[str] = []
    notes: list[str] = []
    for op in operations:
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            continue
        path = lexical_abspath(op["path"], cwd)
        if path not in state:
            state[path] = _read(path)
            order.append(path)
        if state[path] is None:
            continue
        kind = op.get("mode") or op.get("op") or op.get("type") or op.get("operation")
        new, note = apply_operation(state[path] or "", kind, op)
        if note:
            notes.append(f"{path}: {note}")
        state[path] = new
    lines: list[str] = []
    for path in order:
        if state[path] is None:
            lines.append(f"{path}: too large or unreadable, no preview\n")
            continue
        old = _read(path) or ""
        lines.extend(_unified(old, state[path] or "", path, path))
    lines.extend(f"! {note}\n" for note in notes)
    return _clip(lines)


def apply_operation(text: str, kind: Any, op: dict) -> tuple[str, str | None]:
    """One operations-form entry applied to `text` in memory: (new text, problem or None)."""
    if kind == "overwrite":
        return str(op.get("content", "")), None
    if kind == "append":
        return text + str(op.get("content", "")), None
    if kind == "replace_text":
        old, new = str(op.get("old_text", "")), str(op.get("new_text", ""))
        if not old or old not in text:
            return text, "old_text not found"
        return text.replace(old, new, 1), None
    if kind == "replace_lines":
        lines = text.splitlines(keepends=True)
        start, end = int(op.get("start_line", 1)), int(op.get("end_line", 0))
        content = str(op.get("content", ""))
        if content and not content.endswith("\n"):
            content += "\n"
        lines[max(start - 1, 0):max(end, start - 1)] = [content] if content else []
        return "".join(lines), None
    return text, f"unknown operation {kind!r}"


def _patch_diff(patch: str, cwd: str) -> str:
    lines: list[str] = []
    for op in parse_patch(patch):
        path = lexical_abspath(op.path, cwd)
        if isinstance(op, AddFile):
            lines.extend(_unified("", op.content, "/dev/null", path))
        elif isinstance(op, DeleteFile):
            lines.extend(_unified(_read(path) or "", "", path, "/dev/null"))
        else:
            old = _read(path)
            if old is None:
                lines.append(f"{path}: too large or unreadable, no preview\n")
                continue
            target = lexical_abspath(op.move_to, cwd) if op.move_to else path
            try:
                new = apply_hunks(old, op.chunks, path)
            except Exception as err:
                lines.append(f"! {path}: {getattr(err, 'message', err)}\n")
                continue
            lines.extend(_unified(old, new, path, target))
    return _clip(lines) or patch

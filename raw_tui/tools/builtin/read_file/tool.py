"""builtin/read_file: a text file as numbered lines (DECISIONS.md §3).

Arguments `{path, offset?, limit?}`: `path` relative to `ctx.cwd` or absolute; `offset` is the
first line shown (1-based, default 1); `limit` the most lines shown (default 2000). Lines are
split on `\\n` only and shown as `N<TAB>text`, the numbering `write_file`'s `replace_lines`
uses. A line longer than 2000 characters is cut (`… [line cut: N chars]`). The text shown
stays under the output budget (the agent's `max_output_bytes` when the context carries it,
else 8 KiB, less room for the note); when lines are left out, a last line says which and the
`offset` that continues.

Errors raise (dispatch makes them `read_file failed: MSG`): no such file, a directory, not
UTF-8 text (a NUL byte or invalid UTF-8), an offset past the end.
"""

from __future__ import annotations

from raw_tui.tools.strict import strict_error

import os
from typing import Any

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
DEFAULT_BUDGET = 8192
NOTE_ROOM = 160


def validate_args(args: Any) -> str | None:
    problem = strict_error('read_file', args)
    if problem:
        return problem
    if not isinstance(args, dict):
        return None
    path = args.get("path")
    if isinstance(path, str) and (not path or "\0" in path):
        return "path is empty or holds a NUL character"
    for key in ("offset", "limit"):
        value = args.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            return f"{key} must be 1 or more"
    return None


def handler(args: Any, ctx: Any) -> str:
    path = os.path.normpath(os.path.join(ctx.cwd, args["path"]))
    data = read_bytes(path)
    text = decode(data, path)
    offset = args.get("offset", 1)
    limit = args.get("limit", DEFAULT_LIMIT)
    budget = ctx.max_output_bytes or DEFAULT_BUDGET
    budget = max(512, budget) - NOTE_ROOM
    return render(split_lines(text), offset, limit, budget)


def read_bytes(path: str) -> bytes:
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory")
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file: {path}") from None
    except PermissionError:
        raise PermissionError(f"permission denied: {path}") from None


def decode(data: bytes, path: str) -> str:
    if b"\0" in data[:8192]:
        raise ValueError(f"{path} is a binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text") from None


def split_lines(text: str) -> list[str]:
    """The file's lines without their `\\n`; a final newline does not start another line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def render(lines: list[str], offset: int, limit: int, budget: int) -> str:
    total = len(lines)
    if total == 0:
        return "(empty file)"
    if offset > total:
        raise ValueError(f"offset {offset} is past the end: the file has {total} lines")
    out: list[str] = []
    used = 0
    last = offset - 1
    for number in range(offset, min(total, offset - 1 + limit) + 1):
        line = f"{number}\t{clip_line(lines[number - 1])}"
        size = len(line.encode()) + 1
        if out and used + size > budget:
            break
        out.append(line)
        used += size
        last = number
    if last < total:
        out.append(f"[lines {offset}-{last} of {total}; continue with offset={last + 1}]")
    return "\n".join(out)


def clip_line(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [line cut: {len(line)} chars]"

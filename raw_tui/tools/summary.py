"""A call's one-line summary, for the tool_call event (docs/decisions.md).

What a client shows of a call at a glance (`write_file note.txt`, `bash: ls -la`,
`todo: 3/4 done`) is computed here, by the engine: a tool's entry module may define
`summarize(args, ctx) -> str` (plain, run in a worker thread under the effects deadline, with
a `ctx` that changes nothing: `effects`, `cwd`, and `panels.get` of its own panels); any
other tool, or one whose summarize fails, gets the generic line: its name and the first
string values of its arguments. Either way one line of at most MAX_SUMMARY characters,
controls escaped. The raw arguments stay in the event for a client to show on request.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..protocol.termsafe import escape_controls

if TYPE_CHECKING:
    from .ports import Tool

MAX_SUMMARY = 120
MAX_GENERIC_VALUES = 2
MAX_VISITED = 256


def one_line(text: str, limit: int = MAX_SUMMARY) -> str:
    """`text` on one line (runs of blanks, newlines included, as one space), controls
    escaped, cut to `limit` characters with `…`."""
    flat = escape_controls(" ".join(str(text)[:limit * 8].split()), keep_lines=False)
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def label(tool: Tool | None, name: str) -> str:
    """How a call names its tool: an MCP tool by its server's own name and the server (the
    model's alias is a hash), any other by its name."""
    own = tool.label if tool is not None else None
    return own or name


def generic(tool: Tool | None, name: str, arguments: Any) -> str:
    """`NAME VALUE VALUE`: the first string values of the arguments, depth first (at most
    MAX_VISITED values looked at: arguments may be nested thousands deep)."""
    values: list[str] = []
    stack: list[Any] = [arguments]
    visited = 0
    while stack and len(values) < MAX_GENERIC_VALUES and visited < MAX_VISITED:
        value = stack.pop()
        visited += 1
        if isinstance(value, str):
            if value.strip():
                values.append(value)
        elif isinstance(value, dict):
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, (list, tuple)):
            stack.extend(reversed(value))
    return one_line(" ".join([label(tool, name), *values]))


def relative(path: str, cwd: str) -> str:
    """`path` relative to `cwd` when it lies under it (the absolute path otherwise)."""
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel


class OwnPanels:
    """`ctx.panels` for summarize: `get` of the tool's own panels, nothing else."""

    def __init__(self, host: Any, owner: str) -> None:
        self._host, self._owner = host, owner

    def get(self, panel: str) -> tuple[int, Any]:
        owner, sep, panel_id = str(panel).rpartition("#")
        if sep and owner != self._owner:
            return 0, None
        return self._host.get(f"{self._owner}#{panel_id}")

"""A stdio MCP server's process, as its connection (raw_tui.mcp.connection) handles it: the
end of its process tree at close, the process the SDK spawned (for its exit status), and
that status as a death notice says it.

Imports no `mcp` SDK module until `probe_spawns` runs (inside a connection's start).
"""

from __future__ import annotations

import contextvars
import signal
from typing import Any

from ..tools import proctree


async def end_tree(tree: proctree.Tree) -> None:
    """End what is left of a stdio server's tree (its children, wherever they went); SIGKILL
    at once if that is interrupted."""
    try:
        if tree.anything_left() and tree.members():
            await tree.end()
        else:
            proctree.reap()
    except BaseException:
        tree.end_now()
        raise
    finally:
        tree.close()


def exit_text(status: int | None) -> str:
    if status is None:
        return "it closed the connection"
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


# The SDK's stdio transport does not hand out the server's process; its exit status is what
# a death notice says. The spawn function is wrapped once so that the task entering the
# transport (the connection's owner, which sets this list) gets the process it started.
SPAWNED: contextvars.ContextVar[list | None] = contextvars.ContextVar("mcp_spawned",
                                                                      default=None)


def probe_spawns() -> None:
    import mcp.client.stdio as stdio

    spawn = getattr(stdio, "_create_platform_compatible_process", None)
    if spawn is None or getattr(spawn, "raw_tui_probe", False):
        return  # another SDK layout: the notice then says only that the server ended

    async def probed(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        found = SPAWNED.get()
        if found is not None:
            found.append(process)
        return process

    probed.raw_tui_probe = True  # type: ignore[attr-defined]
    stdio._create_platform_compatible_process = probed

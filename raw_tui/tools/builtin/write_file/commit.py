"""Writing a write_file plan: all-or-nothing as far as the filesystem allows (tool.py's
docstring), and what the call reports it did.
"""

from __future__ import annotations

import os

from raw_tui.tools import fsatomic
from raw_tui.tools.builtin.write_file.obstacles import refuse_existing, refuse_obstacles
from raw_tui.tools.builtin.write_file.planning import Plan


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

"""write_file's effects: the files a call names, each with its operation (tool.py's docstring).

Pure: nothing here touches the filesystem.
"""

from __future__ import annotations

from typing import Any

from raw_tui.protocol.errors import EFFECTS_ERROR, RawError
from raw_tui.tools.patch import check_repeated, lexical_abspath, parse_patch, targets

MAX_EFFECTS = 128


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

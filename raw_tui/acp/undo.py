"""`_raw/session/undo {sessionId, turn?, dryRun?}`: the session command `Undo` for an ACP
client (docs/checkpoints.md), its report in ACP's spelling."""

from __future__ import annotations

from typing import Any

from ..protocol import commands as cmd
from ..protocol import errors
from . import codes
from .codes import error


async def undo(bridge: Any, params: dict[str, Any]) -> dict[str, Any]:
    turn = params.get("turn")
    if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int) or turn < 1):
        raise error(codes.INVALID_PARAMS, "turn: a turn number, counted from 1")
    dry_run = params.get("dryRun", False)
    if not isinstance(dry_run, bool):
        raise error(codes.INVALID_PARAMS, "dryRun: true or false")
    reply = await bridge.session.handle(cmd.Undo(turn=turn, dry_run=dry_run))
    await bridge.flush()
    if reply.code == errors.BUSY:
        raise error(codes.BUSY, reply.message or "the session is busy")
    if not reply.ok and reply.code != errors.NOTHING_TO_UNDO:
        raise error(codes.UPSTREAM, reply.message or "undo failed", {"code": reply.code})
    report = reply.report or {"files": [], "unobserved_turns": []}
    out: dict[str, Any] = {"files": report.get("files", []),
                           "unobservedTurns": report.get("unobserved_turns", [])}
    for key in ("turn", "notes"):
        if key in report:
            out[key] = report[key]
    if not reply.ok:
        out["message"] = reply.message
    return out

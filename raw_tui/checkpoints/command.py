"""The session command `Undo` (raw_tui/protocol/commands.py): an idle session undoes a turn of its
own (docs/checkpoints.md). The `undo` event goes out on the bus (so into the history and
every client); a dry run's report carries each file's diff, the preview a client shows
before it asks for the real one."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..protocol import commands as cmd
from ..protocol import errors
from . import service

if TYPE_CHECKING:
    from ..session.state import SessionState


async def undo(session: SessionState, command: cmd.Undo) -> cmd.Reply:
    refused = session.refuse_unless_idle()
    if refused is not None:
        return refused
    recorder = session.checkpoints
    if recorder is None or session.store is None:
        return cmd.Reply(ok=False, code=errors.NOTHING_TO_UNDO,
                         message="nothing to undo: this session keeps no checkpoints")
    history = session.store.events(session.session_id)
    turn = command.turn
    if command.turn_id is not None:
        turns = service.prompt_turns(history)
        if command.turn_id not in turns:
            return cmd.Reply(ok=False, code=errors.NOTHING_TO_UNDO,
                             message=f"no turn {command.turn_id} in this session")
        turn = turns.index(command.turn_id) + 1
    published: list = []
    try:
        outcome = await asyncio.to_thread(
            service.run, recorder.store, history, turn=turn, dry_run=command.dry_run,
            overwrite=command.overwrite, with_diffs=command.dry_run, publish=published.append)
    except OSError as err:
        return cmd.Reply(ok=False, code=errors.TOOL_ERROR,
                         message=f"undo failed: {err} (run it again to finish)")
    for event in published:
        session.bus.publish(event)
    report = outcome.report()
    if command.dry_run and outcome.diffs:
        report["files"] = outcome.diffs
    if outcome.code == service.EXIT_NOTHING:
        return cmd.Reply(ok=False, code=errors.NOTHING_TO_UNDO, message=outcome.message,
                         report=report)
    message = "; ".join(outcome.notes) or None
    return cmd.Reply(ok=True, message=message, report=report)

"""The session command `Undo` and ACP's `_raw/session/undo {sessionId, turn?, dryRun?}`
over the SDK's memory transport: a dry run's preview with its diff, the undo, its event,
nothing left to undo, a busy session refused, bad parameters."""

from __future__ import annotations

import asyncio

from raw_tui.protocol import bus as ev
from tests.acp_agent.acp_kit import error_of, rig

WRITE = {"tool_calls": [{"name": "write_file", "id": "w1", "arguments": {"operations": [
    {"mode": "overwrite", "path": "a.txt", "content": "new\n"}]}}]}
SLOW = {"tool_calls": [{"name": "bash", "id": "slow", "arguments": {
    "commands": [{"command": "sleep 5"}]}}]}


async def undo(r, sid, **params):
    return await r.conn.ext_method("raw/session/undo", {"sessionId": sid, **params})


async def test_acp_undo_previews_then_restores(tmp_path):
    async with rig(tmp_path, [WRITE, {"text": "ok"}, SLOW, {"text": "slept"}],
                   use=["builtin/write_file", "builtin/bash"]) as r:
        (r.work / "a.txt").write_text("old\n")
        sid = await r.start()
        await r.prompt(sid, "write")
        assert (r.work / "a.txt").read_text() == "new\n"
        preview = await undo(r, sid, dryRun=True)
        path = str(r.work / "a.txt")
        assert preview["turn"] == 1 and preview["unobservedTurns"] == []
        [file] = preview["files"]
        assert file["path"] == path and file["action"] == "restored"
        assert "-new\n+old\n" in file["diff"]
        assert (r.work / "a.txt").read_text() == "new\n"  # a dry run changes nothing
        done = await undo(r, sid, turn=1)
        assert done["files"] == [{"path": path, "action": "restored"}]
        assert (r.work / "a.txt").read_text() == "old\n"
        session = r.agent.bridges[sid].session
        stored = session.store.events(sid)
        [event] = [e for e in stored if isinstance(e, ev.TurnUndo)]
        assert event.files == [ev.UndoneFile(path=path, action="restored")]
        again = await undo(r, sid)
        assert again["files"] == [] and again["message"].startswith("nothing to undo")
        # busy while a turn runs; bad parameters
        turn = asyncio.ensure_future(r.prompt(sid, "slow"))
        while r.agent.bridges[sid].state != "running":
            await asyncio.sleep(0.01)
        err = await error_of(undo(r, sid))
        assert err.code == -32002
        await turn
        err = await error_of(undo(r, sid, turn=0))
        assert err.code == -32602 and "turn" in err.message
        err = await error_of(undo(r, sid, overwrite=True))
        assert err.code == -32602 and "overwrite" in err.message


async def test_the_session_command_takes_a_turn_id(tmp_path):
    from raw_tui.protocol import commands as cmd

    async with rig(tmp_path, [WRITE, {"text": "ok"}], use=["builtin/write_file"]) as r:
        sid = await r.start()
        await r.prompt(sid, "write")
        session = r.agent.bridges[sid].session
        turn_id = next(e.turn_id for e in session.store.events(sid)
                       if isinstance(e, ev.UserMessage))
        reply = await session.handle(cmd.Undo(turn_id=turn_id, dry_run=True))
        assert reply.ok and reply.report["files"][0]["action"] == "removed"
        reply = await session.handle(cmd.Undo(turn_id=turn_id))
        assert reply.ok and not (r.work / "a.txt").exists()
        reply = await session.handle(cmd.Undo(turn_id="nosuch"))
        assert not reply.ok and reply.code == "nothing_to_undo"

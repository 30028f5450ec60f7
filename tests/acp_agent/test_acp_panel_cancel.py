"""`session/cancel` ends a `_raw/panel/action` at once (issue 18, item 1): waiting for its
permission, the action is denied (-32004, as a cancelled permission is a denial: MCP-ACP.md
§2.3) and a late "allow" from the client runs nothing; with its handler running, it ends
cancelled (-32006) and the handler's code after its await never runs."""

from __future__ import annotations

import asyncio
import time

from tests.acp_agent.kit import RecordingClient, error_of, rig
from tests.engine.test_panel_action_cancel import ASK, PANELS, SLOW

TOOLS = {"slow": (SLOW, {"panels": PANELS})}
ACTION = {"panel": "agent/slow#board", "action": "go"}


async def test_cancel_denies_a_panel_action_waiting_for_permission(tmp_path):
    late: asyncio.Future = asyncio.get_running_loop().create_future()
    client = RecordingClient(permission=lambda call: late)
    async with rig(tmp_path, client=client, tools=TOOLS, use=["agent/slow"], rules=ASK) as r:
        sid = await r.start(raw={"panelsV2": True})
        action = asyncio.ensure_future(r.conn.ext_method("raw/panel/action",
                                                         {"sessionId": sid, **ACTION}))
        while not client.permissions:
            await asyncio.sleep(0.01)
        began = time.monotonic()
        await r.conn.cancel(session_id=sid)
        err = await asyncio.wait_for(error_of(action), 5)
        assert time.monotonic() - began < 1.5
        assert err.code == -32004 and err.data == {"code": "approval_denied"}
        late.set_result("allow")  # the client answers after all: nothing may run
        await asyncio.sleep(0.3)
        assert not (r.work / "started").exists() and not (r.work / "ran").exists()


async def test_cancel_ends_a_panel_action_whose_handler_runs(tmp_path):
    async with rig(tmp_path, tools=TOOLS, use=["agent/slow"]) as r:
        sid = await r.start(raw={"panelsV2": True})
        action = asyncio.ensure_future(r.conn.ext_method("raw/panel/action",
                                                         {"sessionId": sid, **ACTION}))
        deadline = time.monotonic() + 10
        while not (r.work / "started").exists():
            assert time.monotonic() < deadline, "the handler never started"
            await asyncio.sleep(0.01)
        began = time.monotonic()
        await r.conn.cancel(session_id=sid)
        err = await asyncio.wait_for(error_of(action), 5)
        assert time.monotonic() - began < 1.5
        assert err.code == -32006 and err.data == {"code": "cancelled"}
        await asyncio.sleep(0.3)
        assert not (r.work / "ran").exists()

"""Panels over ACP as Raw (issue 18). `session/cancel` ends a `_raw/panel/action` at once
(item 1): waiting for its permission, the action is denied (-32004, as a cancelled permission
is a denial: docs/acp.md) and a late "allow" from the client runs nothing; with its
handler running, it ends cancelled (-32006) and the handler's code after its await never
runs. Only the first `acp_plan` panel sends plans (item 7)."""

from __future__ import annotations

import asyncio
import time

from tests.acp_agent.acp_kit import RecordingClient, error_of, rig
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


PLAN_TOOL = '''
def handler(args, ctx):
    return {"content": [{"type": "panel", "panel": "steps", "op": "replace", "document": {
        "blocks": [{"id": "c", "kind": "checklist", "items": [
            {"id": "a", "label": args["label"], "status": "in_progress", "priority": "high",
             "children": [{"id": "b", "label": "under", "status": "skipped"}]}]}]}}]}
'''
PLAN_PANELS = [{"id": "steps", "title": "Steps", "acp_plan": True}]
PLAN_SCHEMA = {"type": "object", "properties": {"label": {"type": "string"}}}


async def test_only_the_first_acp_plan_panel_sends_plans_and_the_rest_warn(tmp_path):
    """Raw: tests/panels-declarations.test.ts, "only the first acp_plan panel keeps the flag;
    the rest are cleared with a warning"; the plan carries Raw's `priority` and `children`
    (docs/acp.md)."""
    tools = {name: (PLAN_TOOL, {"panels": PLAN_PANELS, "schema": PLAN_SCHEMA})
             for name in ("first", "second")}
    calls = [{"tool_calls": [{"name": "second", "arguments": {"label": "from second"}}]},
             {"tool_calls": [{"name": "first", "arguments": {"label": "from first"}}]},
             {"text": "ok"}]
    async with rig(tmp_path, calls, tools=tools, use=["agent/first", "agent/second"]) as r:
        sid = await r.start(raw={"panelsV2": True})
        await r.prompt(sid, "plan")
    plans = [[(e.content, e.status, e.priority) for e in u.entries] for u in r.client.of("plan")]
    assert plans == [[("from first", "in_progress", "high"), ("under", "completed", "medium")]]
    thoughts = r.client.text("agent_thought_chunk")
    assert "panel agent/second#steps: acp_plan ignored, agent/first#steps already mirrors" \
        in thoughts
    second = [p for m, p in r.client.ext_notifications if p["panel"] == "agent/second#steps"]
    first = [p for m, p in r.client.ext_notifications if p["panel"] == "agent/first#steps"]
    assert first[0]["declaration"]["acp_plan"] is True
    assert second and second[0]["declaration"].get("acp_plan", False) is False

"""A cancel ends the panel tool actions running at that moment (issue 18, item 1): one waiting
for its approval is denied at once and its handler never runs (a late "allow" finds nothing to
answer); one whose handler runs ends `cancelled`, and the handler's code after its await never
runs. Through the session's commands (what the UI's Esc and the session host send)."""

from __future__ import annotations

import asyncio
import time

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from tests.engine.session_kit import agent_config, make_session

# The handler says it started (a file), then waits; what follows the wait must never run.
SLOW = '''
import asyncio, pathlib

async def handler(args, ctx):
    work = pathlib.Path(ctx.cwd)
    (work / "started").write_text("yes")
    await asyncio.sleep(30)
    (work / "ran").write_text("ran after its cancel")
    return {"content": [{"type": "text", "text": "finished"}]}
'''
PANELS = [{"id": "board", "title": "Board", "actions": [
    {"id": "go", "label": "Go", "kind": "tool", "arguments": {"text": "go"}}]}]
ASK = [{"match": "agent/slow", "effect": "ask"}]


def slow_session(tmp_path, rules=None):
    config = agent_config(tmp_path, use=["agent/slow"], rules=rules,
                          tools={"slow": (SLOW, {"panels": PANELS})})
    return make_session(tmp_path, [], config=config, interactive=True)


def action() -> cmd.PanelAction:
    return cmd.PanelAction(panel="agent/slow#board", action="go")


async def test_cancel_denies_an_action_waiting_for_its_approval(tmp_path):
    h = slow_session(tmp_path, ASK)
    running = asyncio.create_task(h.session.handle(action()))
    request = await h.wait_for(ev.ApprovalRequest)
    began = time.monotonic()
    assert (await h.session.handle(cmd.Cancel())).ok
    reply = await asyncio.wait_for(running, 5)
    assert time.monotonic() - began < 1.0  # at once, not after a timeout
    assert not reply.ok and reply.code == "approval_denied"
    assert [d.allow for d in h.of(ev.ApprovalDecision)] == [False]
    late = await h.session.handle(cmd.ApprovalAnswer(call_id=request.call_id, allow=True))
    assert not late.ok  # nothing is waiting for it any more
    await asyncio.sleep(0.2)
    work = tmp_path / "work"
    assert not (work / "started").exists() and not (work / "ran").exists()
    assert not h.session.running_actions


async def test_cancel_ends_an_action_whose_handler_runs(tmp_path):
    h = slow_session(tmp_path)
    work = tmp_path / "work"
    running = asyncio.create_task(h.session.handle(action()))
    deadline = time.monotonic() + 10
    while not (work / "started").exists():
        assert time.monotonic() < deadline, "the handler never started"
        await asyncio.sleep(0.01)
    began = time.monotonic()
    assert (await h.session.handle(cmd.Cancel())).ok
    reply = await asyncio.wait_for(running, 5)
    assert time.monotonic() - began < 1.0
    assert not reply.ok and reply.code == "cancelled"
    assert h.of(ev.ToolResultEvent)[-1].code == "cancelled"
    await asyncio.sleep(0.3)
    assert not (work / "ran").exists()


async def test_cancel_with_nothing_running_is_refused(tmp_path):
    h = slow_session(tmp_path)
    assert not (await h.session.handle(cmd.Cancel())).ok

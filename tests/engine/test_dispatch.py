"""The seven steps of dispatch: each code and text of DECISIONS.md §3, in order."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import write_config
from tests.engine.misbehaving_tools import RULES, write_all
from raw_tui import bus as ev
from raw_tui.approval import FixedApprover
from raw_tui.config import load_config
from raw_tui.frozen import FrozenDict
from raw_tui.tools.dispatch import Dispatcher
from raw_tui.tools.ports import GateOutcome, NoHooks


@pytest.fixture
def agent(tmp_path):
    cfg = tmp_path / "cfg"
    use = write_all(cfg)
    write_config(cfg, {"tools": {"use": use, "rules": RULES}, "max_output_bytes": 1024})
    return load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()


def make(agent, tmp_path, **kw):
    events = []
    bus = ev.Bus()
    bus.subscribe(events.append)
    return Dispatcher(agent, bus=bus, cwd=str(tmp_path), **kw), events


async def run(agent, tmp_path, name, args, **kw):
    dry_run = kw.pop("dry_run", False)
    cancel = kw.pop("cancel", None)
    d, events = make(agent, tmp_path, **kw)
    report = await d.dispatch(name, args, call_id="c1", dry_run=dry_run, cancel=cancel)
    return report, events


@pytest.mark.parametrize("name,args,stage,code,text", [
    ("nope", {}, "exposure", "tool_not_exposed", "tool unavailable: nope"),
    ("denied", {"text": "a"}, "exposure", "tool_denied", "tool denied: agent/denied"),
    ("noop", {"text": 5}, "validation", "invalid_arguments",
     "invalid arguments: $.text: 5 is not of type 'string'"),
    ("noop", {}, "validation", "invalid_arguments",
     "invalid arguments: $: 'text' is a required property"),
    ("validated", {"text": "bad"}, "validation", "invalid_arguments",
     "invalid arguments: text must not be bad"),
    ("fx_async", {"text": "a"}, "effects", "invalid_effects",
     "effects descriptors must return synchronously"),
    ("fx_raise", {"text": "a"}, "effects", "effects_error", "cannot describe fx_raise: no can do"),
    ("noop", {"text": "secret"}, "approval", "approval_required",
     "approval required for noop"),
    ("crash", {"text": "a"}, "handler", "tool_error", "crash failed: boom"),
])
async def test_each_stop(agent, tmp_path, name, args, stage, code, text):
    report, events = await run(agent, tmp_path, name, args)
    assert (report.stage, report.code, report.message) == (stage, code, text)
    assert report.result.isError and report.result.code == code
    assert report.result.content == [{"type": "text", "text": text}]
    kinds = [type(e).__name__ for e in events]
    assert kinds[-1] == "ToolResultEvent" and events[-1].code == code


@pytest.mark.parametrize("tool,needle", [
    ("fx_notjson", "not JSON"), ("fx_big", "over 65536"), ("fx_schema", "$.files[0].path"),
])
async def test_invalid_effects_stop_before_policy(agent, tmp_path, tool, needle):
    report, _ = await run(agent, tmp_path, tool, {"text": "a"})
    assert report.stage == "effects" and report.code == "invalid_effects"
    assert needle in report.message and report.rule is None


async def test_allowed_call_runs_with_frozen_arguments(agent, tmp_path):
    report, events = await run(agent, tmp_path, "noop", {"text": "hi"})
    assert report.outcome == "ran" and report.rule == "allow"
    assert report.result.content == [{"type": "text", "text": "ok: hi"}]
    call = next(e for e in events if isinstance(e, ev.ToolCall))
    assert isinstance(call.arguments, FrozenDict) and call.arguments == {"text": "hi"}


async def test_handler_cannot_change_arguments(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "mutator", {"text": "hi"})
    assert report.code == "tool_error" and "frozen" in report.message


async def test_effects_rule_asks_and_approval_sees_same_objects(agent, tmp_path):
    approver = FixedApprover(True)
    seen = {}

    class Hooks(NoHooks):
        async def pre_tool_use(self, call, cancel):
            seen["hook"] = call
            return GateOutcome()

    report, events = await run(agent, tmp_path, "fx_ok", {"text": "protected/a"},
                               approver=approver, hooks=Hooks())
    assert report.outcome == "ran" and report.rule == "ask" and report.approval_requested
    request = approver.requests[0]
    assert request.arguments is seen["hook"].arguments
    assert request.effects is seen["hook"].effects
    assert request.effects == {"files": [{"path": "/tmp/x/protected/a", "operation": "write"}]}
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ToolCall", "ApprovalRequest", "ApprovalDecision", "ToolResultEvent"]


async def test_effects_rule_does_not_ask_elsewhere(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "fx_ok", {"text": "open/a"})
    assert report.outcome == "ran" and report.rule == "allow" and not report.approval_requested


async def test_approval_denied(agent, tmp_path):
    report, events = await run(agent, tmp_path, "noop", {"text": "secret"},
                               approver=FixedApprover(False))
    assert (report.code, report.message) == ("approval_denied", "approval denied for noop")
    assert isinstance(events[2], ev.ApprovalDecision) and events[2].allow is False


async def test_approval_error(agent, tmp_path):
    class Broken:
        async def approve(self, request):
            raise RuntimeError("ui gone")

    report, _ = await run(agent, tmp_path, "noop", {"text": "secret"}, approver=Broken())
    assert report.code == "approval_error" and "ui gone" in report.message


async def test_hook_deny_comes_before_approval(agent, tmp_path):
    approver = FixedApprover(True)

    class Deny(NoHooks):
        async def pre_tool_use(self, call, cancel):
            return GateOutcome(allowed=False, code="hook_denied", reason="hook guard denied")

    report, _ = await run(agent, tmp_path, "noop", {"text": "secret"}, approver=approver,
                          hooks=Deny())
    assert (report.stage, report.code, report.message) == (
        "hooks", "hook_denied", "hook guard denied")
    assert approver.requests == []


async def test_hook_continue_never_overrides_ask(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "noop", {"text": "secret"})
    assert report.code == "approval_required"


async def test_dry_run_stops_before_handler(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "crash", {"text": "a"}, dry_run=True)
    assert report.outcome == "would_run" and report.code is None


async def test_output_cap_sets_truncated(agent, tmp_path):
    report, events = await run(agent, tmp_path, "big", {"text": "a"})
    assert report.result.truncated is True
    assert len(report.result.content[0]["text"]) == 1024
    assert events[-1].truncated is True


async def test_panel_blocks_never_reach_the_result(agent, tmp_path):
    report, events = await run(agent, tmp_path, "panelled", {"text": "a"})
    types = [b["type"] for b in report.result.content]
    assert "panel" not in types and report.result.content[0]["text"] == "visible"
    assert all(b.get("type") != "panel" for b in events[-1].content)


async def test_cancel_during_handler(agent, tmp_path):
    cancel = asyncio.Event()
    d, events = make(agent, tmp_path)
    task = asyncio.create_task(d.dispatch("slow", {"text": "a"}, call_id="c1", cancel=cancel))
    await asyncio.sleep(0.05)
    cancel.set()
    report = await asyncio.wait_for(task, 5)
    assert report.code == "cancelled" and report.stage == "handler"


async def test_denied_tool_is_left_out_of_the_model_list(agent):
    names = [t.name for t in agent.model_tools()]
    assert "denied" not in names and "noop" in names

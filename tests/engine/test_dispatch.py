"""The seven steps of dispatch: each code and text of docs/gate.md, in order."""

from __future__ import annotations

import asyncio

import pytest

from tests.config_kit import write_config
from tests.engine.misbehaving_tools import RULES, write_all
from raw_tui.protocol import bus as ev
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
    """The handler ran and was cancelled: a failed call, so PostToolUseFailure hooks hear it."""
    post = []

    class Hooks(NoHooks):
        async def post_tool_use(self, call, result, cancel):
            post.append((call.identity, result["isError"], result.get("code"), cancel.is_set()))
            return []

    cancel = asyncio.Event()
    d, events = make(agent, tmp_path, hooks=Hooks())
    task = asyncio.create_task(d.dispatch("slow", {"text": "a"}, call_id="c1", cancel=cancel))
    await asyncio.sleep(0.05)
    cancel.set()
    report = await asyncio.wait_for(task, 5)
    assert report.code == "cancelled" and report.stage == "handler"
    assert post == [("agent/slow", True, "cancelled", True)]
    assert events[-1].code == "cancelled"


async def test_denied_tool_is_left_out_of_the_model_list(agent):
    names = [t.name for t in agent.model_tools()]
    assert "denied" not in names and "noop" in names


# ---- holes found in review -------------------------------------------------------------

async def test_lone_surrogate_in_arguments_is_invalid_not_a_predicate_miss(agent, tmp_path):
    # "secret" asks; a lone surrogate must not make the predicate miss and the call run.
    report, _ = await run(agent, tmp_path, "noop", {"text": "secret\udcff"})
    assert (report.stage, report.code) == ("validation", "invalid_arguments")
    assert report.message == "invalid arguments: $.text: not valid Unicode (lone surrogate)"


async def test_lone_surrogate_in_a_key_is_invalid(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "anything", {"a": {"\ud800": 1}})
    assert report.code == "invalid_arguments"
    assert "lone surrogate" in report.message


async def test_lone_surrogate_in_a_write_path_stops_at_validation(tmp_path):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/write_file"], "rules": [
        {"match": "builtin/write_file", "effect": "ask", "when": {
            "source": "effects", "any": "files[*].path", "regex": "/protected/"}}]}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    d = Dispatcher(agent, bus=ev.Bus(), cwd=str(tmp_path))
    report = await d.dispatch("write_file", {"operations": [
        {"mode": "overwrite", "path": "protected/x\udcff", "content": "a"}]}, call_id="c1")
    assert report.code == "invalid_arguments" and "lone surrogate" in report.message
    assert not (tmp_path / "protected").exists()


async def test_effects_that_cannot_be_utf8_are_invalid_effects(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "fx_surrogate", {"text": "a"})
    assert (report.stage, report.code) == ("effects", "invalid_effects")
    assert report.message.startswith("invalid effects from fx_surrogate: ")


async def test_an_empty_string_from_validate_args_is_an_error(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "emptyerror", {"text": "a"})
    assert (report.code, report.message) == ("invalid_arguments", "invalid arguments: ")


async def test_validate_args_defined_under_try_still_runs(agent, tmp_path):
    report, _ = await run(agent, tmp_path, "tryvalidated", {"text": "a"})
    assert (report.code, report.message) == (
        "invalid_arguments", "invalid arguments: checked by the fallback validator")


async def test_deeply_nested_arguments_are_invalid_not_a_crash(agent, tmp_path):
    nested: list = []
    for _ in range(5000):
        nested = [nested]
    report, _ = await run(agent, tmp_path, "anything", {"a": nested})
    assert report.code == "invalid_arguments"


@pytest.mark.parametrize("tool", ["badblock", "imageblock"])
async def test_a_result_block_outside_the_catalog_is_a_tool_error(agent, tmp_path, tool):
    report, _ = await run(agent, tmp_path, tool, {"text": "a"})
    assert report.outcome == "ran" and report.code == "tool_error"
    assert report.message.startswith(f"{tool} failed: ")


async def test_hooks_that_raise_block_the_call(agent, tmp_path):
    class Broken(NoHooks):
        async def pre_tool_use(self, call, cancel):
            raise RuntimeError("cannot encode")

    report, _ = await run(agent, tmp_path, "noop", {"text": "a"}, hooks=Broken())
    assert (report.stage, report.code) == ("hooks", "hook_error")
    assert report.outcome == "stopped"


async def test_events_of_a_call_with_a_lone_surrogate_can_be_stored(agent, tmp_path):
    report, events = await run(agent, tmp_path, "noop", {"text": "secret\udcff"})
    assert report.code == "invalid_arguments"
    for event in events:
        ev.encode(event)  # the history encodes every event as UTF-8 JSON
    call = next(e for e in events if isinstance(e, ev.ToolCall))
    assert call.arguments == {"text": "secret\ufffd"}


async def test_post_hooks_that_raise_leave_the_result_as_it_was(agent, tmp_path):
    class Broken(NoHooks):
        async def post_tool_use(self, call, result, cancel):
            raise RuntimeError("cannot encode")

    report, events = await run(agent, tmp_path, "noop", {"text": "hi"}, hooks=Broken())
    assert report.outcome == "ran" and report.code is None
    assert report.result.content == [{"type": "text", "text": "ok: hi"}]
    assert isinstance(events[-1], ev.ToolResultEvent)
    assert any(isinstance(e, ev.Notice) and "cannot encode" in e.message for e in events)


async def test_a_patch_error_quoting_a_lone_surrogate_never_reaches_the_history(tmp_path):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/write_file"]}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    d, events = make(agent, tmp_path)
    report = await d.dispatch("write_file", {"patch": "*** Begin Patch\n\udcff\n*** End Patch"},
                              call_id="c1")
    assert report.code == "invalid_arguments" and "lone surrogate" in report.message
    for event in events:
        ev.encode(event)


async def test_a_handler_error_quoting_a_lone_surrogate_can_be_stored(agent, tmp_path):
    from raw_tui.tools.result import error_result

    result = error_result("tool_error", "cannot read /x/\udcff")
    assert result.content == [{"type": "text", "text": "cannot read /x/\ufffd"}]


async def test_a_slow_plain_handler_does_not_freeze_the_event_loop(tmp_path):
    from tests.config_kit import write_config, write_tool

    cfg = tmp_path / "cfg2"
    write_tool(cfg, "sleepy", '''
        import time
        def handler(args, ctx):
            time.sleep(0.3)
            return "slept"
    ''')
    write_config(cfg, {"tools": {"use": ["agent/sleepy"]}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    d, _ = make(agent, tmp_path)  # under the UI and headless alike
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    report = await d.dispatch("sleepy", {}, call_id="c1")
    task.cancel()
    assert report.result.content == [{"type": "text", "text": "slept"}]
    assert ticks >= 10  # the loop kept running (a UI stays responsive)

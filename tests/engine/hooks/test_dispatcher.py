"""The dispatcher: events → hooks → receipts, with real hook processes."""

from __future__ import annotations

import asyncio
import json
import time

import msgspec

from hook_kit import BASH, WRITE, write_hook
from raw_tui.protocol.bus import HookEvent
from raw_tui.frozen import freeze
from raw_tui.hooks import format_receipt
from raw_tui.tools.ports import CallInfo

RM_WHEN = {"source": "arguments", "any": "commands[*].command", "regex": r"(^|[;&|()\n])\s*rm(\s|$)"}
DUMP = "data = sys.stdin.read()\nopen(os.path.join(os.getcwd(), 'payloads.jsonl'), 'a').write(data)\n"


def bash_call(command: str, turn_id: str = "t1") -> CallInfo:
    return CallInfo(identity="builtin/bash", name="bash", call_id="c1",
                    arguments=freeze({"commands": [{"command": command}]}), effects=None,
                    has_effects=False, turn_id=turn_id)


def write_call(path: str) -> CallInfo:
    return CallInfo(identity="builtin/write_file", name="write_file", call_id="c2",
                    arguments=freeze({"path": path}), effects=freeze({"files": [{"path": path, "operation": "write"}]}),
                    has_effects=True, turn_id="t1")


def payloads(tmp_path) -> list[dict]:
    path = tmp_path / "payloads.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


async def test_when_selects_calls_and_deny_uses_the_hooks_reason(tmp_path, make_dispatcher, recorder):
    write_hook(tmp_path, "guard", "print(json.dumps({'decision': 'deny', 'reason': 'Review removal commands first'}))",
               events=[{"name": "PreToolUse", "match": "builtin/bash", "when": RM_WHEN}])
    hooks = make_dispatcher(["agent/guard"])
    allowed = await hooks.pre_tool_use(bash_call("printf hi"), asyncio.Event())
    assert (allowed.allowed, allowed.receipts, recorder.events) == (True, [], [])
    denied = await hooks.pre_tool_use(bash_call("ls; rm -rf x"), asyncio.Event())
    assert (denied.allowed, denied.code, denied.reason) == (False, "hook_denied", "Review removal commands first")
    [receipt] = denied.receipts
    assert (receipt.id, receipt.event, receipt.outcome, receipt.turn_id) == ("agent/guard", "PreToolUse", "denied", "t1")
    assert recorder.events == [receipt]


async def test_deny_without_reason_and_error_texts(tmp_path, make_dispatcher):
    write_hook(tmp_path, "quiet", "sys.exit(2)")
    write_hook(tmp_path, "broken", "sys.exit(1)")
    denied = await make_dispatcher(["agent/quiet"]).pre_tool_use(bash_call("x"), asyncio.Event())
    assert (denied.code, denied.reason) == ("hook_denied", "hook agent/quiet denied")
    failed = await make_dispatcher(["agent/broken"]).pre_tool_use(bash_call("x"), asyncio.Event())
    assert (failed.allowed, failed.code, failed.reason) == (False, "hook_error", "hook agent/broken failed: exit")
    assert failed.receipts[0].code == "exit"


async def test_order_and_the_first_deny_stops_the_rest(tmp_path, make_dispatcher, recorder):
    marker = tmp_path / "c-ran"
    write_hook(tmp_path, "a", "print(json.dumps({'decision': 'continue', 'message': 'a ok'}))")
    write_hook(tmp_path, "b", "print(json.dumps({'decision': 'deny'}))")
    write_hook(tmp_path, "c", f"open({str(marker)!r}, 'w').write('1')")
    outcome = await make_dispatcher(["agent/a", "agent/b", "agent/c"]).pre_tool_use(bash_call("x"), asyncio.Event())
    assert [(r.id, r.outcome) for r in outcome.receipts] == [("agent/a", "continued"), ("agent/b", "denied")]
    assert outcome.receipts[0].message == "a ok"
    assert recorder.events == outcome.receipts
    assert not marker.exists()


async def test_gate_on_effects_of_a_tool_without_effects_blocks(tmp_path, make_dispatcher):
    marker = tmp_path / "ran"
    write_hook(tmp_path, "fx", f"open({str(marker)!r}, 'w').write('1')",
               events=[{"name": "PreToolUse", "when": {"source": "effects", "any": "files[*].path", "regex": "secret"}}])
    hooks = make_dispatcher(["agent/fx"], tools={"builtin/bash": BASH, "builtin/write_file": WRITE})
    blocked = await hooks.pre_tool_use(bash_call("ls"), asyncio.Event())
    assert (blocked.allowed, blocked.code, blocked.reason) == (
        False, "hook_error", "hook agent/fx: effects inspection unavailable")
    assert format_receipt(blocked.receipts[0]) == "Hook agent/fx PreToolUse: error · effects inspection unavailable"
    assert not marker.exists()
    # on a tool with effects the predicate reads the effects
    assert (await hooks.pre_tool_use(write_call("/tmp/public"), asyncio.Event())).receipts == []
    ran = await hooks.pre_tool_use(write_call("/tmp/secret"), asyncio.Event())
    assert ran.allowed and ran.receipts[0].outcome == "continued" and marker.exists()


async def test_post_tool_use_by_is_error_and_never_raises(tmp_path, make_dispatcher):
    write_hook(tmp_path, "post", DUMP + "print(json.dumps({'message': 'seen ' + json.loads(data)['event']}))",
               events=[{"name": "PostToolUse"}, {"name": "PostToolUseFailure", "match": "builtin/bash"}])
    write_hook(tmp_path, "bad", "sys.exit(3)", events=["PostToolUse"])
    hooks = make_dispatcher(["agent/post", "agent/bad"])
    ok_result = {"isError": False, "content": [{"type": "text", "text": "hi"}]}
    receipts = await hooks.post_tool_use(bash_call("printf hi"), ok_result, asyncio.Event())
    assert [(r.id, r.outcome, r.code if r.code is not msgspec.UNSET else None) for r in receipts] == [
        ("agent/post", "continued", None), ("agent/bad", "error", "exit")]
    assert receipts[0].message == "seen PostToolUse"
    failed = {"isError": True, "code": "tool_error", "content": [{"type": "text", "text": "bash failed"}]}
    receipts = await hooks.post_tool_use(bash_call("false"), failed, asyncio.Event())
    assert [(r.id, r.event) for r in receipts] == [("agent/post", "PostToolUseFailure")]
    sent = payloads(tmp_path)
    assert sent[0]["tool"]["result"] == ok_result and sent[1]["tool"]["result"] == failed
    assert ok_result == {"isError": False, "content": [{"type": "text", "text": "hi"}]}


async def test_payload_fields_for_every_event(tmp_path, make_dispatcher):
    events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"]
    write_hook(tmp_path, "dump", DUMP, events=events)
    hooks = make_dispatcher(["agent/dump"])
    cancel = asyncio.Event()
    await hooks.session_start("resume")
    await hooks.user_prompt_submit("hello there", "t1", cancel)
    await hooks.pre_tool_use(write_call("/x"), cancel)
    await hooks.post_tool_use(bash_call("printf hi"), {"isError": False, "content": []}, cancel)
    await hooks.post_tool_use(bash_call("false"), {"isError": True, "code": "tool_error", "content": []}, cancel)
    await hooks.stop("t1", {"status": "error", "code": "hook_denied", "message": "no"})
    await hooks.session_end()
    sent = payloads(tmp_path)
    assert [p["event"] for p in sent] == events
    base = {"protocol_version": 2, "cwd": str(tmp_path), "agent_id": "coder", "session_id": "s1"}
    assert sent[0] == {**base, "event": "SessionStart", "source": "resume"}
    assert sent[1] == {**base, "event": "UserPromptSubmit", "turn_id": "t1", "input": "hello there"}
    assert sent[2] == {**base, "event": "PreToolUse", "turn_id": "t1", "tool": {
        "identity": "builtin/write_file", "name": "write_file", "source": "model",
        "arguments": {"path": "/x"}, "effects": {"files": [{"path": "/x", "operation": "write"}]}}}
    assert sent[3]["tool"] == {"identity": "builtin/bash", "name": "bash", "source": "model",
                               "arguments": {"commands": [{"command": "printf hi"}]},
                               "result": {"isError": False, "content": []}}
    assert sent[5] == {**base, "event": "Stop", "turn_id": "t1",
                       "run": {"status": "error", "code": "hook_denied", "message": "no"}}
    assert sent[6] == {**base, "event": "SessionEnd"}


async def test_user_prompt_submit_can_deny(tmp_path, make_dispatcher):
    write_hook(tmp_path, "nope", "req = json.load(sys.stdin)\n"
               "print(json.dumps({'decision': 'deny' if 'secret' in req['input'] else 'continue'}))",
               events=["UserPromptSubmit"])
    hooks = make_dispatcher(["agent/nope"])
    assert (await hooks.user_prompt_submit("hello", "t1", asyncio.Event())).allowed
    denied = await hooks.user_prompt_submit("the secret", "t2", asyncio.Event())
    assert (denied.allowed, denied.code, denied.reason, denied.receipts[0].turn_id) == (
        False, "hook_denied", "hook agent/nope denied", "t2")


async def test_user_action_source_reaches_the_payload(tmp_path, make_dispatcher):
    write_hook(tmp_path, "dump", DUMP)
    call = CallInfo(identity="builtin/bash", name="bash", call_id="c", arguments=freeze({"commands": []}),
                    effects=None, has_effects=False, source="user_action")
    await make_dispatcher(["agent/dump"]).pre_tool_use(call, asyncio.Event())
    assert payloads(tmp_path)[0]["tool"]["source"] == "user_action"
    assert "turn_id" not in payloads(tmp_path)[0]


async def test_gate_follows_cancel(tmp_path, make_dispatcher):
    write_hook(tmp_path, "slow", "time.sleep(30)", timeout_ms=30000)
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.3, cancel.set)
    started = time.monotonic()
    outcome = await make_dispatcher(["agent/slow"]).pre_tool_use(bash_call("x"), cancel)
    assert (outcome.allowed, outcome.reason) == (False, "hook agent/slow failed: aborted")
    assert time.monotonic() - started < 2


async def test_notification_gets_two_seconds_after_cancel(tmp_path, make_dispatcher):
    marker = tmp_path / "third"
    write_hook(tmp_path, "quick", "time.sleep(0.5)\nprint(json.dumps({'message': 'finished'}))", events=["Stop"])
    write_hook(tmp_path, "slow", "time.sleep(30)", events=["Stop"], timeout_ms=30000)
    write_hook(tmp_path, "third", f"open({str(marker)!r}, 'w').write('1')", events=["Stop"])
    cancel = asyncio.Event()
    cancel.set()
    started = time.monotonic()
    receipts = await make_dispatcher(["agent/quick", "agent/slow", "agent/third"]).stop(
        "t1", {"status": "cancelled"}, cancel)
    elapsed = time.monotonic() - started
    assert [(r.id, r.outcome) for r in receipts] == [("agent/quick", "continued"), ("agent/slow", "error")]
    assert receipts[0].message == "finished" and receipts[1].code == "aborted"
    assert 1.9 <= elapsed < 4
    assert not marker.exists()


async def test_no_subscription_no_process_no_receipt(tmp_path, make_dispatcher, recorder):
    marker = tmp_path / "ran"
    write_hook(tmp_path, "h", f"open({str(marker)!r}, 'w').write('1')", events=["Stop"])
    hooks = make_dispatcher(["agent/h"])
    await hooks.session_start()
    assert (await hooks.pre_tool_use(bash_call("x"), asyncio.Event())).receipts == []
    assert recorder.events == [] and not marker.exists()


def test_format_receipt():
    assert format_receipt(HookEvent(id="agent/g", event="PreToolUse", outcome="denied", duration_ms=3)) == \
        "Hook agent/g PreToolUse: denied"
    assert format_receipt(HookEvent(id="agent/n", event="Stop", outcome="continued", duration_ms=3,
                                    message="Turn t1 finished")) == "Hook agent/n Stop: continued · Turn t1 finished"
    assert format_receipt(HookEvent(id="agent/b", event="Stop", outcome="error", duration_ms=3,
                                    code="timeout")) == "Hook agent/b Stop: error · timeout"


async def test_a_prompt_that_is_not_valid_unicode_still_reaches_the_gate(tmp_path, make_dispatcher):
    # `raw-tui run $'\xff'` gives a prompt holding "\udcff" (surrogateescape from argv).
    write_hook(tmp_path, "nope", "req = json.load(sys.stdin)\n"
               "print(json.dumps({'decision': 'deny' if 'secret' in req['input'] else 'continue'}))",
               events=["UserPromptSubmit"])
    hooks = make_dispatcher(["agent/nope"])
    denied = await hooks.user_prompt_submit("the secret \udcff", "t1", asyncio.Event())
    assert (denied.allowed, denied.code) == (False, "hook_denied")

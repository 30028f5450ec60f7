"""Hooks in a real Session (issue 4): a PreToolUse deny comes before an interactive approval;
a denied UserPromptSubmit keeps the prompt out and the model uncalled; a failing PostToolUse
leaves the result the model reads as it was; a hook edited between turns applies only from the
next turn, and a broken edit keeps the last good version. Hooks are real processes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import alive
from tests.engine.session_kit import agent_config, make_session

BASH_CALL = {"name": "bash", "arguments": {"commands": [{"command": "touch made.txt"}]}}

VETO = """
request = json.load(sys.stdin)
command = request["tool"]["arguments"]["commands"][0]["command"]
print(json.dumps({"decision": "deny", "reason": "no touching"} if "touch" in command else {}))
"""


def config(tmp_path: Path, hooks: list[str], **kw):
    return agent_config(tmp_path, hooks={"use": hooks}, **kw)


def receipts(h, event: str | None = None) -> list[ev.HookEvent]:
    return [r for r in h.of(ev.HookEvent) if event in (None, r.event)]


async def answer_approvals(h, allow: bool) -> None:
    """Answer every approval request as the UI does: after it is published and pending."""
    answered: set[str] = set()
    while True:
        for request in h.of(ev.ApprovalRequest):
            if request.call_id in answered:
                continue
            if request.call_id in h.session.approver.pending:
                reply = await h.session.handle(cmd.ApprovalAnswer(call_id=request.call_id,
                                                                  allow=allow))
                assert reply.ok
                answered.add(request.call_id)
        await asyncio.sleep(0.005)


async def run_turn_approving(h):
    """Open the session, run one turn with every approval allowed, close it: the outcome."""
    approver = asyncio.ensure_future(answer_approvals(h, allow=True))
    try:
        await h.session.open()
        return await asyncio.wait_for(h.session.run_turn("go"), 20)
    finally:
        approver.cancel()
        await h.session.close()


# -- 3. PreToolUse deny before approval -------------------------------------------------------

async def test_pre_tool_use_deny_means_the_approver_is_never_asked(tmp_path):
    cfg_dir = tmp_path / "cfg"
    write_hook(cfg_dir, "veto", VETO, events=["PreToolUse"])
    h = make_session(tmp_path, [{"tool_calls": [BASH_CALL]}, {"text": "ok"}], interactive=True,
                     config=config(tmp_path, ["agent/veto"],
                                   rules=[{"match": "builtin/bash", "effect": "ask"}]))
    outcome = await run_turn_approving(h)
    assert outcome.status == "completed"
    assert h.of(ev.ApprovalRequest) == [] and h.of(ev.ApprovalDecision) == []
    [result] = h.of(ev.ToolResultEvent)
    assert (result.isError, result.code, result.content[0]["text"]) == \
        (True, "hook_denied", "no touching")
    assert [(r.id, r.outcome) for r in receipts(h, "PreToolUse")] == [("agent/veto", "denied")]
    assert not (tmp_path / "work" / "made.txt").exists()


async def test_pre_tool_use_continue_still_asks_the_approver(tmp_path):
    cfg_dir = tmp_path / "cfg"
    write_hook(cfg_dir, "veto", VETO, events=["PreToolUse"])
    call = {"name": "bash", "arguments": {"commands": [{"command": "echo fine > made.txt"}]}}
    h = make_session(tmp_path, [{"tool_calls": [call]}, {"text": "ok"}], interactive=True,
                     config=config(tmp_path, ["agent/veto"],
                                   rules=[{"match": "builtin/bash", "effect": "ask"}]))
    outcome = await run_turn_approving(h)
    assert outcome.status == "completed"
    assert len(h.of(ev.ApprovalRequest)) == 1
    assert [d.allow for d in h.of(ev.ApprovalDecision)] == [True]
    assert (tmp_path / "work" / "made.txt").read_text() == "fine\n"
    # the hook ran before the approval was asked
    kinds = h.kinds()
    assert kinds.index("HookEvent", kinds.index("ToolCall")) < kinds.index("ApprovalRequest")


# -- 5. a denied UserPromptSubmit -------------------------------------------------------------

async def test_denied_prompt_never_reaches_the_model_or_the_conversation(tmp_path):
    cfg_dir = tmp_path / "cfg"
    write_hook(cfg_dir, "gate", """
        request = json.load(sys.stdin)
        if request["event"] == "Stop":
            print(json.dumps({"message": f"{request['run']['status']} {request['run'].get('code')}"}))
        elif "secret" in request["input"]:
            sys.exit(2)
        """, events=["UserPromptSubmit", "Stop"])
    h = make_session(tmp_path, [{"text": "first line"}, {"text": "second line"}],
                     config=config(tmp_path, ["agent/gate"]))
    await h.session.open()
    try:
        denied = await h.session.run_turn("the secret word")
        assert (denied.status, denied.code, denied.message) == \
            ("error", "hook_denied", "hook agent/gate denied")
        assert h.model.requests == [] and h.of(ev.UserMessage) == []
        assert h.session.conversation.messages() == []
        assert [(e.status, e.code) for e in h.of(ev.RunEnd)] == [("error", "hook_denied")]
        ok = await h.session.run_turn("hello")
    finally:
        await h.session.close()
    assert ok.status == "completed"
    assert [e.text for e in h.of(ev.AssistantText)] == ["first line"]
    [request] = h.model.requests
    assert "secret" not in request.wire()
    # a denied turn still ends: one run_end each, and Stop hooks hear how it ended
    assert [e.status for e in h.of(ev.RunEnd)] == ["error", "completed"]
    assert [r.message for r in receipts(h, "Stop")] == ["error hook_denied", "completed None"]


# -- 4. a failing PostToolUse -----------------------------------------------------------------

async def test_failing_post_tool_use_leaves_what_the_model_reads(tmp_path):
    cfg_dir = tmp_path / "cfg"
    write_hook(cfg_dir, "post", "print('garbage')", events=["PostToolUse"])
    write_hook(cfg_dir, "slowpost", "time.sleep(30)", events=["PostToolUse"], timeout_ms=300)
    call = {"name": "bash", "arguments": {"commands": [{"command": "printf payload-text"}]}}
    h = make_session(tmp_path, [{"tool_calls": [call]}, {"text": "ok"}],
                     config=config(tmp_path, ["agent/post", "agent/slowpost"]))
    await h.session.open()
    try:
        outcome = await h.session.run_turn("go")
    finally:
        await h.session.close()
    assert outcome.status == "completed"
    assert [(r.id, r.outcome, r.code) for r in receipts(h, "PostToolUse")] == [
        ("agent/post", "error", "invalid_output"), ("agent/slowpost", "error", "timeout")]
    [result] = h.of(ev.ToolResultEvent)
    assert result.isError is False
    assert result.content == [{"type": "text", "text": "$ printf payload-text\npayload-text\nexit 0"}]
    tool_message = h.model.requests[1].messages[-1]
    assert tool_message.text == "$ printf payload-text\npayload-text\nexit 0"


# -- 6. edit a hook between two turns ---------------------------------------------------------

STAMP = """
VERSION = "{version}"
request = json.load(sys.stdin)
print(json.dumps({{"message": VERSION}}))
"""

WAIT_FOR_GO = '''
import asyncio
from pathlib import Path

async def handler(args, ctx):
    Path(ctx.cwd, "started").touch()
    for _ in range(2000):
        if Path(ctx.cwd, "go").exists():
            return "went"
        await asyncio.sleep(0.01)
    return "gave up"
'''


def stamps(h, turn_id: str) -> list[tuple[str, str]]:
    return [(r.event, r.message) for r in h.of(ev.HookEvent) if r.turn_id == turn_id]


async def until(predicate, timeout: float = 10.0) -> None:
    async def poll():
        while not predicate():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(poll(), timeout)


async def test_an_edit_applies_from_the_next_turn_and_a_broken_one_keeps_the_last_good(tmp_path):
    cfg_dir = tmp_path / "cfg"
    folder = write_hook(cfg_dir, "stamp", STAMP.format(version="v1"),
                        events=["PreToolUse", "PostToolUse", "Stop"])
    script = folder / "hook.py"
    good_manifest = (folder / "hook.json").read_text()
    slow = {"name": "waiter", "arguments": {}}
    lines = []
    for n in range(4):
        lines += [{"tool_calls": [slow]}, {"text": f"turn {n + 1} done"}]
    h = make_session(tmp_path, lines, config=config(
        tmp_path, ["agent/stamp"], use=["agent/waiter"],
        tools={"waiter": (WAIT_FOR_GO, {"schema": {"type": "object"}})}))
    work = tmp_path / "work"
    session = h.session
    await session.open(watch=True)
    try:
        await until(lambda: session.watcher is not None and session.watcher.ready.is_set())
        # turn 1: the script is edited while the tool runs
        await session.handle(cmd.Prompt(text="one"))
        await until(lambda: (work / "started").exists())
        script.write_text(script.read_text().replace("v1", "v2"))
        await until(lambda: session.watcher.pending is not None)
        (work / "go").touch()
        await session.wait_idle()
        first = h.of(ev.RunEnd)[0].turn_id
        assert stamps(h, first) == [("PreToolUse", "v1"), ("PostToolUse", "v1"), ("Stop", "v1")]
        assert h.of(ev.HooksReload) == []  # nothing swaps in the middle of, or after, a turn
        # turn 2: the new version, announced at the turn's start
        await session.run_turn("two")
        second = h.of(ev.RunEnd)[1].turn_id
        assert stamps(h, second) == [("PreToolUse", "v2"), ("PostToolUse", "v2"), ("Stop", "v2")]
        [reload] = h.of(ev.HooksReload)
        assert reload.ok is True and "agent/stamp" in reload.message
        kinds = h.kinds()
        end = kinds.index("RunEnd")
        assert kinds[end + 1:end + 3] == ["HooksReload", "UserMessage"]  # at the turn's start
        # a broken manifest (and a new script beside it) is refused; v2 stays
        (folder / "hook.json").write_text('{"protocol_version": 2, "name": "stamp", "events": [')
        await until(lambda: any(not r.ok for r in h.of(ev.HooksReload)))
        script.write_text(script.read_text().replace("v2", "v3"))
        await asyncio.sleep(0.3)  # let the watcher see the script too
        refused = [r for r in h.of(ev.HooksReload) if not r.ok]
        assert "hooks/stamp/hook.json" in refused[0].message
        assert "keeping the last good version" in refused[0].message
        assert session.watcher.pending is None
        await session.run_turn("three")
        third = h.of(ev.RunEnd)[2].turn_id
        assert stamps(h, third) == [("PreToolUse", "v2"), ("PostToolUse", "v2"), ("Stop", "v2")]
        # fixing the manifest brings the new script in, again from the next turn
        (folder / "hook.json").write_text(good_manifest)
        await until(lambda: session.watcher.pending is not None)
        await session.run_turn("four")
        fourth = h.of(ev.RunEnd)[3].turn_id
        assert stamps(h, fourth) == [("PreToolUse", "v3"), ("PostToolUse", "v3"), ("Stop", "v3")]
        assert [r.ok for r in h.of(ev.HooksReload)][-1] is True
    finally:
        (work / "go").touch()
        await session.close()


# -- cancel while a gate hook runs --------------------------------------------------------------

async def test_cancel_ends_a_hanging_pre_tool_use_and_stop_hooks_still_run(tmp_path):
    cfg_dir = tmp_path / "cfg"
    write_hook(cfg_dir, "hang", """
        request = json.load(sys.stdin)
        if request["event"] == "Stop":
            print(json.dumps({"message": request["run"]["status"]}))
        else:
            open("hang.pid", "w").write(str(os.getpid()))
            time.sleep(60)
        """, events=["PreToolUse", "Stop"], timeout_ms=30000)
    h = make_session(tmp_path, [{"tool_calls": [BASH_CALL]}, {"text": "never"}],
                     config=config(tmp_path, ["agent/hang"]))
    work = tmp_path / "work"
    await h.session.open()
    try:
        await h.session.handle(cmd.Prompt(text="go"))
        await until(lambda: (work / "hang.pid").exists() and (work / "hang.pid").read_text())
        pid = int((work / "hang.pid").read_text())
        assert h.session.cancel()
        await asyncio.wait_for(h.session.wait_idle(), 5)
    finally:
        await h.session.close()
    [end] = h.of(ev.RunEnd)
    assert end.status == "cancelled"
    pre, stop = receipts(h)
    assert (pre.event, pre.outcome, pre.code) == ("PreToolUse", "error", "aborted")
    assert (stop.event, stop.outcome, stop.message) == ("Stop", "continued", "cancelled")
    [result] = h.of(ev.ToolResultEvent)
    assert result.code == "cancelled"
    assert len(h.model.requests) == 1
    assert not alive(pid)
    assert not (work / "made.txt").exists()


# -- what PostToolUse hooks see of a large result ---------------------------------------------

BIG_TOOL = """
def handler(args, ctx):
    return "x" * 20000
"""


async def test_post_tool_use_sees_the_result_before_the_cap(tmp_path):
    """The contract's order: panel blocks out, then hooks, then caps, then providers and
    history (docs/gate.md: PostToolUse runs, "then text is capped")."""
    cfg_dir = tmp_path / "cfg"
    write_hook(cfg_dir, "size", """
        result = json.load(sys.stdin)["tool"]["result"]
        text = "".join(b["text"] for b in result["content"])
        print(json.dumps({"message": f"{len(text)} {result.get('truncated', False)}"}))
        """, events=["PostToolUse"])
    h = make_session(tmp_path, [{"tool_calls": [{"name": "big", "arguments": {}}]},
                                {"text": "ok"}],
                     config=config(tmp_path, ["agent/size"], use=["agent/big"],
                                   tools={"big": (BIG_TOOL, {"schema": {"type": "object"}})}))
    await h.session.open()
    try:
        await h.session.run_turn("go")
    finally:
        await h.session.close()
    [receipt] = receipts(h, "PostToolUse")
    assert (receipt.outcome, receipt.message) == ("continued", "20000 False")
    [result] = [e for e in h.events if isinstance(e, ev.ToolResultEvent)]
    limit = h.session.agent.config.max_output_bytes
    assert result.truncated is True and len(result.content[0]["text"]) == limit

"""The tool_call event says the policy's verdict (issue 11, defect 11): a client showed
`allowed` for a call the policy sends to approval, while its hooks and preview ran before
the approval request. `policy` and `rule` come with the call; a call stopped before the
policy step carries neither."""

from __future__ import annotations

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from tests.engine.session_kit import make_session

WRITE = {"name": "write_file", "arguments": {"operations": [
    {"mode": "overwrite", "path": "notes.txt", "content": "hi"}]}}


async def test_an_asked_call_says_ask_before_its_approval_request(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [WRITE]}, {"text": "ok"}], interactive=True,
                     rules=[{"match": "builtin/bash", "effect": "allow"},
                            {"match": "builtin/write_file", "effect": "ask"}])
    await h.session.handle(cmd.Prompt(text="go"))
    request = await h.wait_for(ev.ApprovalRequest)
    (call,) = h.of(ev.ToolCall)
    assert (call.policy, call.rule) == ("ask", 1) and request.rule == 1
    assert h.events.index(call) < h.events.index(request)
    await h.session.handle(cmd.ApprovalAnswer(call_id=request.call_id, allow=True))
    await h.session.wait_idle()


async def test_an_allowed_call_says_allow_and_a_stopped_one_says_nothing(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [
        {"name": "read_file", "arguments": {"path": "x"}},
        {"name": "read_file", "arguments": {"nope": 1}}]}, {"text": "ok"}])
    await h.session.run_turn("go")
    allowed, invalid = h.of(ev.ToolCall)
    assert allowed.policy == "allow" and "rule" not in ev.to_builtins(allowed)
    assert "policy" not in ev.to_builtins(invalid)
    assert h.of(ev.ToolResultEvent)[1].code == "invalid_arguments"

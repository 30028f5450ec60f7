"""The turn loop: states, exactly one run_end, cancel paths, approval_required, max_steps,
what the model is sent (system prompt, tool definitions, results)."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.models.base import ModelError
from raw_tui.session.prompt import DEFAULT_SYSTEM_PROMPT
from tests.engine.session_kit import make_session

SLOW_TOOL = '''
import asyncio

async def handler(args, ctx):
    await asyncio.sleep(30)
    return "slept"
'''


def states(h) -> list[tuple[str, int]]:
    return [(e.state, e.step) for e in h.of(ev.TurnState)]


def one_run_end(h) -> ev.RunEnd:
    ends = h.of(ev.RunEnd)
    assert len(ends) == 1, ends
    return ends[0]


async def test_states_steps_and_one_run_end(tmp_path):
    h = make_session(tmp_path, [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "missing"}}]},
        {"text": "Done."}])
    await h.session.open()
    outcome = await h.session.run_turn("go")
    assert outcome.status == "completed"
    assert states(h) == [("idle", 0), ("running", 0), ("running", 1), ("running", 2),
                         ("idle", 0)]
    assert one_run_end(h).status == "completed"
    await h.session.close()
    assert states(h)[-1] == ("closing", 0)


async def test_request_holds_system_prompt_and_tools_never_denied_ones(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [{"name": "read_file",
                                                 "arguments": {"path": "missing"}}]},
                                {"text": "ok"}],
                     rules=[{"match": "builtin/write_file", "effect": "deny"}])
    await h.session.run_turn("hello")
    first, second = h.model.requests
    assert first.system == DEFAULT_SYSTEM_PROMPT
    assert [t.name for t in first.tools] == ["read_file", "bash"]
    agent_tools = {t.name: t for t in h.session.agent.tools.tools}
    for tool in first.tools:
        assert tool.input_schema == agent_tools[tool.name].input_schema
        assert tool.description == agent_tools[tool.name].description
    assert [m.role for m in first.messages] == ["user"]
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    assert second.messages[2].is_error and "missing" in second.messages[2].text


async def test_system_prompt_replaces_the_default(tmp_path):
    h = make_session(tmp_path, [{"text": "ok"}], system_prompt="Answer in French.")
    await h.session.run_turn("hi")
    assert h.model.requests[0].system == "Answer in French."


async def test_cancel_mid_stream(tmp_path):
    h = make_session(tmp_path, [{"text": " ".join(["word"] * 200)}], delay_ms=20)
    reply = await h.session.handle(cmd.Prompt(text="go"))
    assert reply.ok
    await h.wait_for(ev.AssistantDelta)
    assert (await h.session.handle(cmd.Prompt(text="again"))).code == "busy"
    assert (await h.session.handle(cmd.Cancel())).ok
    await h.session.wait_idle()
    end = one_run_end(h)
    assert (end.status, end.code) == ("cancelled", "cancelled")
    assert not h.of(ev.AssistantText)
    assert [s for s, _ in states(h)] == ["running", "running", "cancelling", "idle"]
    assert not (await h.session.handle(cmd.Cancel())).ok  # nothing to cancel now
    # the next turn runs normally; the cancelled request is not replayed
    assert (await h.session.run_turn("next")).status == "completed"


async def test_cancel_during_a_tool_cancels_it_and_the_rest(tmp_path):
    h = make_session(tmp_path, [
        {"tool_calls": [{"name": "slow", "arguments": {}},
                        {"name": "read_file", "arguments": {"path": "x"}}]},
        {"text": "never"}],
        use=["agent/slow", "builtin/read_file"], tools={"slow": SLOW_TOOL})
    await h.session.handle(cmd.Prompt(text="go"))
    await h.wait_for(ev.ToolCall)
    await asyncio.sleep(0.05)
    h.session.cancel()
    await asyncio.wait_for(h.session.wait_idle(), 5)
    results = h.of(ev.ToolResultEvent)
    assert [r.code for r in results] == ["cancelled", "cancelled"]
    assert one_run_end(h).status == "cancelled"
    assert len(h.model.requests) == 1
    # the conversation keeps the calls and their results for the next turn
    await h.session.run_turn("and now?")
    roles = [m.role for m in h.model.requests[-1].messages]
    assert roles == ["user", "assistant", "tool", "tool", "user"]


async def test_cancel_while_waiting_for_approval(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [{"name": "bash", "arguments": {
        "commands": [{"command": "true"}]}}]}],
        interactive=True, rules=[{"match": "builtin/bash", "effect": "ask"}])
    await h.session.handle(cmd.Prompt(text="go"))
    request = await h.wait_for(ev.ApprovalRequest)
    assert request.rule == 0
    await h.session.handle(cmd.Cancel())
    await asyncio.wait_for(h.session.wait_idle(), 5)
    assert [r.code for r in h.of(ev.ToolResultEvent)] == ["cancelled"]
    assert one_run_end(h).status == "cancelled"
    late = await h.session.handle(cmd.ApprovalAnswer(call_id=request.call_id, allow=True))
    assert not late.ok


async def test_approval_denied_is_a_result_the_model_reads(tmp_path):
    h = make_session(tmp_path, [
        {"tool_calls": [{"name": "bash", "arguments": {"commands": [{"command": "true"}]}}]},
        {"text": "Understood."}],
        interactive=True, rules=[{"match": "builtin/bash", "effect": "ask"}])
    await h.session.handle(cmd.Prompt(text="go"))
    request = await h.wait_for(ev.ApprovalRequest)
    assert (await h.session.handle(cmd.ApprovalAnswer(call_id=request.call_id,
                                                      allow=False))).ok
    await h.session.wait_idle()
    assert h.of(ev.ApprovalDecision)[0].allow is False
    assert h.of(ev.ToolResultEvent)[0].code == "approval_denied"
    assert one_run_end(h).status == "completed"
    tool_msg = h.model.requests[1].messages[-1]
    assert tool_msg.role == "tool" and tool_msg.text == "approval denied for bash"


async def test_approval_required_headless_ends_the_run_and_cancels_the_rest(tmp_path):
    h = make_session(tmp_path, [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a"}},
                        {"name": "bash", "arguments": {"commands": [{"command": "true"}]}},
                        {"name": "read_file", "arguments": {"path": "b"}}]},
        {"text": "never"}],
        rules=[{"match": "builtin/bash", "effect": "ask"}])
    outcome = await h.session.run_turn("go")
    assert (outcome.status, outcome.code) == ("error", "approval_required")
    assert [r.code for r in h.of(ev.ToolResultEvent)] == [
        "tool_error", "approval_required", "cancelled"]
    assert len(h.model.requests) == 1 and not h.of(ev.ApprovalDecision)
    # headless, a sandboxed bash call still shows what it would have changed (its dry run)
    assert all(r.observed is not msgspec.UNSET for r in h.of(ev.ApprovalRequest))
    assert one_run_end(h).code == "approval_required"


async def test_max_steps(tmp_path):
    call = {"tool_calls": [{"name": "read_file", "arguments": {"path": "x"}}]}
    h = make_session(tmp_path, [call] * 5, max_steps=3)
    outcome = await h.session.run_turn("loop")
    assert (outcome.status, outcome.code) == ("max_steps", "max_steps")
    assert len(h.model.requests) == 3 and len(h.of(ev.ToolResultEvent)) == 3
    assert one_run_end(h).message == "stopped after 3 model requests"


@pytest.mark.parametrize("name,code", [
    ("bash", "invalid_arguments"), ("nope", "tool_not_exposed"), ("write_file", "tool_denied")])
async def test_malformed_arguments(tmp_path, name, code):
    h = make_session(tmp_path, [{"tool_calls": [{"name": name, "arguments": "{not json"}]},
                                {"text": "ok"}],
                     rules=[{"match": "builtin/write_file", "effect": "deny"}])
    assert (await h.session.run_turn("go")).status == "completed"
    call, = h.of(ev.ToolCall)
    assert call.arguments == "{not json"
    result, = h.of(ev.ToolResultEvent)
    assert result.code == code
    tool_msg = h.model.requests[1].messages[-1]
    assert tool_msg.is_error and tool_msg.text == result.content[0]["text"]


class FailingModel:
    name = "openai-chat-completions"

    async def stream(self, messages, tools, *, system=None):
        from raw_tui.models.base import TextDelta

        yield TextDelta("Hel")
        raise ModelError("openai-chat-completions: HTTP 500: upstream exploded", kind="http",
                         status=500)


async def test_model_error_ends_the_run_with_one_line(tmp_path):
    h = make_session(tmp_path, [])
    h.session.provider = FailingModel()
    outcome = await h.session.run_turn("go")
    assert (outcome.status, outcome.code) == ("error", "model_error")
    assert outcome.message == "openai-chat-completions: HTTP 500: upstream exploded"
    assert one_run_end(h).message == outcome.message
    assert h.session.state == "idle"
    assert [m.role for _, m in h.session.conversation.entries] == ["user"]


async def test_close_during_a_turn_cancels_it_with_one_run_end(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [{"name": "slow", "arguments": {}}]}],
                     use=["agent/slow"], tools={"slow": SLOW_TOOL})
    await h.session.open()
    await h.session.handle(cmd.Prompt(text="go"))
    await h.wait_for(ev.ToolCall)
    await asyncio.wait_for(h.session.close(), 5)
    assert one_run_end(h).status == "cancelled"
    assert states(h)[-1] == ("closing", 0)
    assert (await h.session.handle(cmd.Prompt(text="after"))).code == "closed"


async def test_cancelling_the_task_still_publishes_run_end(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [{"name": "slow", "arguments": {}}]}],
                     use=["agent/slow"], tools={"slow": SLOW_TOOL})
    task = asyncio.create_task(h.session.run_turn("go"))
    await h.wait_for(ev.ToolCall)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert one_run_end(h).status == "cancelled"
    assert h.session.state == "idle"


async def test_clear_starts_over_without_a_run(tmp_path):
    h = make_session(tmp_path, [{"text": "one"}, {"text": "two"}])
    await h.session.run_turn("first")
    assert (await h.session.run_turn("/clear")).status == "completed"
    await h.session.run_turn("second")
    assert h.model.requests[-1].texts() == ["second"]
    assert len(h.of(ev.RunEnd)) == 2


async def test_every_event_of_a_turn_carries_its_turn_id(tmp_path):
    h = make_session(tmp_path, [
        {"text": "plan", "tool_calls": [
            {"name": "todo", "arguments": {"todos": [{"content": "a"}]}},
            {"name": "read_file", "arguments": {"path": "missing"}}]},
        {"text": "Done."}], use=["builtin/read_file", "builtin/todo"])
    await h.session.open()
    await h.session.run_turn("go")
    await h.session.close()
    turn_id = one_run_end(h).turn_id
    start = next(i for i, e in enumerate(h.events)
                 if isinstance(e, ev.TurnState) and e.state == "running")
    end = h.events.index(one_run_end(h))
    inside = h.events[start:end + 1]
    assert len({type(e).__name__ for e in inside}) >= 8
    assert [type(e).__name__ for e in inside if e.turn_id != turn_id] == []
    outside = h.events[:start] + h.events[end + 1:]
    assert all(not isinstance(e.turn_id, str) for e in outside)


async def test_a_failing_stop_step_still_ends_the_turn_once(tmp_path):
    # whatever goes wrong after the outcome is known, the turn ends with one run_end
    h = make_session(tmp_path, [{"text": "ok"}, {"text": "again"}])

    async def broken_stop(*args, **kw):
        raise RuntimeError("stop hooks exploded")

    h.session.hooks.stop = broken_stop
    outcome = await h.session.run_turn("go")
    assert outcome.status == "completed"
    assert one_run_end(h).status == "completed" and h.session.state == "idle"
    notice, = h.of(ev.Notice)
    assert notice.level == "error" and "stop hooks exploded" in notice.message
    assert (await h.session.run_turn("next")).status == "completed"

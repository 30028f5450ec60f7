"""Issue 5 through the session: the todo panel's revisions and receipts, an ask_user form
answered through a test surface (commands on the bus), panel tool actions through the whole
dispatch, and the note the model reads after one."""

from __future__ import annotations

import asyncio
import json
import shutil

import msgspec
import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.config import DEMO_DIR
from tests.engine.session_kit import agent_config, make_session

QUESTION = {"name": "ask_user", "arguments": {"title": "A question", "questions": [
    {"id": "colour", "text": "Which colour?", "options": [
        {"id": "blue", "label": "Blue"}, {"id": "green", "label": "Green"}]},
    {"id": "comment", "text": "Anything else?", "required": False}]}}


def todo(mode, *items, title=None):
    args = {"todos": [dict(zip(("id", "content", "status"), item)) for item in items],
            "mode": mode}
    if title:
        args["title"] = title
    return {"name": "todo", "arguments": args}


async def test_todo_panel_reaches_revision_n_with_receipts(tmp_path):
    h = make_session(tmp_path, [
        {"tool_calls": [todo("replace", ("a", "Read", "in_progress"), ("b", "Write", "pending"),
                             title="Plan")]},
        {"tool_calls": [todo("merge", ("a", "Read", "done"))]},
        {"tool_calls": [todo("merge", ("b", "Write", "done"), ("c", "Ship", "pending"))]},
        {"text": "Done."}], use=["builtin/todo"])
    assert (await h.session.run_turn("go")).status == "completed"
    receipts = h.of(ev.PanelReceipt)
    assert [(r.panel, r.owner, r.revision, r.op, r.source, r.summary) for r in receipts] == [
        ("todo", "builtin/todo", 1, "replace", "model", "0/2 done"),
        ("todo", "builtin/todo", 2, "replace", "model", "1/2 done"),
        ("todo", "builtin/todo", 3, "replace", "model", "2/3 done")]
    assert all(r.title == "Plan" and r.error is msgspec.UNSET for r in receipts)
    texts = [r.content[0]["text"] for r in h.of(ev.ToolResultEvent)]
    assert texts == ["panel todo updated (revision 1): 0/2 done",
                     "panel todo updated (revision 2): 1/2 done",
                     "panel todo updated (revision 3): 2/3 done"]
    final = h.of(ev.PanelState)[-1]
    assert (final.panel, final.revision) == ("builtin/todo#todo", 3)
    assert h.session.panels.get("builtin/todo#todo")[0] == 3
    # the model read the confirmation lines, never the document
    for request in h.model.requests:
        assert '"blocks"' not in request.wire() and '"kind"' not in request.wire()


async def ask(tmp_path, *after):
    h = make_session(tmp_path, [{"tool_calls": [QUESTION]}, *after], interactive=True,
                     use=["builtin/ask_user"])
    await h.session.handle(cmd.Prompt(text="ask me"))
    request = await h.wait_for(ev.InteractionRequest)
    assert request.panel == "builtin/ask_user#ask"
    return h, request


async def test_ask_user_answered_through_the_session(tmp_path):
    h, request = await ask(tmp_path, {"text": "Thanks."})
    bad = await h.session.handle(cmd.FormAnswer(request_id=request.request_id,
                                                answers={"colour": "purple"}))
    assert not bad.ok and bad.code == "interaction_invalid" and bad.message.startswith("colour")
    assert [v.request_id for v in h.session.interactions.pending()] == [request.request_id]
    missing = await h.session.handle(cmd.FormAnswer(request_id=request.request_id,
                                                    answers={"comment": "hi"}))
    assert not missing.ok and missing.message == "colour: required"
    good = await h.session.handle(cmd.FormAnswer(request_id=request.request_id,
                                                 answers={"colour": "green"},
                                                 idempotency_key="k1"))
    assert good.ok
    await asyncio.wait_for(h.session.wait_idle(), 5)
    again = await h.session.handle(cmd.FormAnswer(request_id=request.request_id,
                                                  answers={"colour": "green"},
                                                  idempotency_key="k1"))
    assert again.ok  # the same key: the same acknowledgement
    late = await h.session.handle(cmd.FormAnswer(request_id=request.request_id,
                                                 answers={"colour": "blue"}))
    assert late.code == "interaction_conflict"
    settled, = h.of(ev.InteractionSettled)
    assert settled.status == "answered"
    result, = h.of(ev.ToolResultEvent)
    assert not result.isError
    answer = {"status": "answered", "answers": {"colour": "green"}}
    assert result.content == [{"type": "json", "value": answer}]
    tool_msg = h.model.requests[1].messages[-1]
    assert tool_msg.role == "tool" and json.loads(tool_msg.text) == answer
    assert h.of(ev.RunEnd)[0].status == "completed"


async def test_cancelling_the_turn_cancels_the_form(tmp_path):
    h, request = await ask(tmp_path)
    await h.session.handle(cmd.Cancel())
    await asyncio.wait_for(h.session.wait_idle(), 5)
    assert h.of(ev.InteractionSettled)[0].status == "cancelled"
    assert [r.code for r in h.of(ev.ToolResultEvent)] == ["cancelled"]
    assert [e.status for e in h.of(ev.RunEnd)] == ["cancelled"]
    assert not h.session.interactions.pending()
    late = await h.session.handle(cmd.FormAnswer(request_id=request.request_id,
                                                 answers={"colour": "blue"}))
    assert late.code == "interaction_conflict"


async def test_user_cancels_the_form(tmp_path):
    h, request = await ask(tmp_path, {"text": "ok"})
    assert (await h.session.handle(cmd.FormCancel(request_id=request.request_id))).ok
    await asyncio.wait_for(h.session.wait_idle(), 5)
    result, = h.of(ev.ToolResultEvent)
    assert result.isError and result.code == "interaction_cancelled"
    assert h.of(ev.RunEnd)[0].status == "completed"


async def test_headless_session_gives_interaction_unavailable(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [QUESTION]}, {"text": "ok"}],
                     use=["builtin/ask_user"])
    assert (await h.session.run_turn("ask")).status == "completed"
    result, = h.of(ev.ToolResultEvent)
    assert result.code == "interaction_unavailable" and not h.of(ev.InteractionRequest)


# panel tool actions --------------------------------------------------------------------

PLAN_LABEL = "Redraw the plan (runs the tool again)"
DRAW = {"name": "plan", "arguments": {"diagram": "graph TD\n  A --> B"}}


def plan_config(tmp_path, rules=None):
    shutil.copytree(DEMO_DIR / "tools" / "plan", tmp_path / "cfg" / "tools" / "plan")
    return agent_config(tmp_path, use=["agent/plan", "builtin/read_file"], rules=rules)


async def test_tool_action_runs_through_dispatch_and_the_model_gets_the_note(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [DRAW]}, {"text": "drawn"}, {"text": "seen"}],
                     config=plan_config(tmp_path))
    await h.session.run_turn("draw")
    reply = await h.session.handle(cmd.PanelAction(panel="agent/plan#plan", action="redraw"))
    text = "panel plan updated (revision 2): 3 steps · redrawn from the panel"
    assert reply.ok and reply.message == text
    call = h.of(ev.ToolCall)[-1]
    assert call.identity == "agent/plan" and call.call_id.startswith("ua_")
    receipt = h.of(ev.PanelReceipt)[-1]
    assert (receipt.source, receipt.revision) == ("user_action", 2)
    assert len(h.model.requests) == 2  # a click does not start a turn
    await h.session.run_turn("what changed?")
    note = f'The user ran "{PLAN_LABEL}" on Plan; agent/plan returned: {text}'
    user = h.of(ev.UserMessage)[-1]
    assert user.text == "what changed?" and user.notes == [note]
    assert h.model.requests[-1].messages[-1].text == f"{note}\n\nwhat changed?"
    await h.session.run_turn("again")  # the note goes once
    assert h.model.requests[-1].messages[-1].text == "again"


ASK_ON_REDRAW = [{"match": "agent/plan", "effect": "ask",
                  "when": {"source": "arguments", "any": "note", "regex": "panel"}}]


async def test_tool_action_with_an_ask_rule_still_asks(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [DRAW]}, {"text": "drawn"}],
                     config=plan_config(tmp_path, ASK_ON_REDRAW), interactive=True)
    await h.session.run_turn("draw")
    assert not h.of(ev.ApprovalRequest)  # the model's call matched no ask
    action = asyncio.create_task(
        h.session.handle(cmd.PanelAction(panel="agent/plan#plan", action="redraw")))
    request = await h.wait_for(ev.ApprovalRequest)
    assert request.identity == "agent/plan" and request.rule == 0
    assert not action.done()  # the click is not an approval
    await h.session.handle(cmd.ApprovalAnswer(call_id=request.call_id, allow=False))
    reply = await asyncio.wait_for(action, 5)
    assert not reply.ok and reply.code == "approval_denied"
    assert h.of(ev.ToolResultEvent)[-1].code == "approval_denied"
    assert h.session.panels.get("agent/plan#plan")[0] == 1  # the handler did not run


async def test_closing_the_session_cancels_a_tool_action_still_waiting(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [DRAW]}, {"text": "drawn"}],
                     config=plan_config(tmp_path, ASK_ON_REDRAW), interactive=True)
    await h.session.run_turn("draw")
    action = asyncio.create_task(
        h.session.handle(cmd.PanelAction(panel="agent/plan#plan", action="redraw")))
    await h.wait_for(ev.ApprovalRequest)  # waits for an answer that never comes
    await h.session.close()
    reply = await asyncio.wait_for(action, 5)
    assert not reply.ok and reply.code == "cancelled"


async def test_tool_action_with_an_ask_rule_headless_is_approval_required(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [DRAW]}, {"text": "drawn"}],
                     config=plan_config(tmp_path, ASK_ON_REDRAW))
    await h.session.run_turn("draw")
    reply = await h.session.handle(cmd.PanelAction(panel="agent/plan#plan", action="redraw"))
    assert reply.code == "approval_required" and not h.of(ev.ApprovalRequest)


async def test_tool_action_with_a_deny_rule(tmp_path):
    h = make_session(tmp_path, [], config=plan_config(
        tmp_path, [{"match": "agent/plan", "effect": "deny"}]))
    reply = await h.session.handle(cmd.PanelAction(panel="agent/plan#plan", action="redraw"))
    assert not reply.ok and reply.code == "tool_denied"
    assert h.of(ev.ToolResultEvent)[-1].content[0]["text"] == "tool denied: agent/plan"


async def test_prompt_action_drafts_text(tmp_path):
    h = make_session(tmp_path, [{"tool_calls": [DRAW]}], config=plan_config(tmp_path))
    await h.session.run_turn("draw")
    reply = await h.session.handle(cmd.PanelAction(panel="agent/plan#plan", action="explain"))
    assert reply.ok and reply.draft == "Explain the plan in plan, step by step."
    assert reply.send is False


@pytest.mark.parametrize("panel,action,code", [
    ("agent/plan#nope", "redraw", "panel_undeclared"),
    ("agent/plan#plan", "nope", "panel_invalid")])
async def test_bad_panel_action(tmp_path, panel, action, code):
    h = make_session(tmp_path, [], config=plan_config(tmp_path))
    reply = await h.session.handle(cmd.PanelAction(panel=panel, action=action))
    assert not reply.ok and reply.code == code


async def test_closing_the_session_interrupts_a_pending_form(tmp_path):
    h, request = await ask(tmp_path, {"text": "never"})
    await asyncio.wait_for(h.session.close(), 5)
    settled, = h.of(ev.InteractionSettled)
    assert (settled.request_id, settled.status) == (request.request_id, "interrupted")
    assert [e.status for e in h.of(ev.RunEnd)] == ["cancelled"]
    late = await h.session.handle(cmd.FormAnswer(request_id=request.request_id,
                                                 answers={"colour": "blue"}))
    assert late.code == "interaction_conflict"


async def test_text_output_gives_one_line_per_receipt(tmp_path):
    import io

    from raw_tui.session.textout import TextPrinter

    code = '''
def handler(args, ctx):
    doc = {"title": "Two\\nlines", "summary": "a\\tb\\nc"}
    return {"content": [{"type": "panel", "panel": "p", "op": "replace", "document": doc}]}
'''
    config = agent_config(tmp_path, use=["agent/multi"], tools={"multi": (code, {
        "panels": [{"id": "p", "title": "P"}]})})
    h = make_session(tmp_path, [{"tool_calls": [{"name": "multi", "arguments": {}}]}],
                     config=config)
    out = io.StringIO()
    h.session.bus.subscribe(TextPrinter(out))
    await h.session.run_turn("go")
    receipt, = [line for line in out.getvalue().splitlines() if line.startswith("▸")]
    assert receipt == "▸ Two lines r1 · a b c"

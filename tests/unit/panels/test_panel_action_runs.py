"""Panel actions end to end: the session entry point with the real dispatch (an `ask` rule
still asks for approval, a `deny` rule still denies: a click is never an approval), and the
note the model gets with the next user message."""

from __future__ import annotations

import asyncio

import pytest

from tests.config_kit import write_config, write_tool
from raw_tui.protocol import bus as ev
from raw_tui.approval import FixedApprover
from raw_tui.protocol.commands import PanelAction
from raw_tui.config import load_config
from raw_tui.interactions import Interactions
from raw_tui.panels import PanelHost
from raw_tui.panels.actions import ActionPorts, run_panel_action
from raw_tui.tools.dispatch import Dispatcher

from panel_kit import declare

PANELS = [{"id": "board", "title": "Board", "actions": [
    {"id": "redo", "label": "Re-run", "kind": "tool", "scope": "item",
     "arguments": {"text": "again {{item.id}}"}},
    {"id": "danger", "label": "Wipe", "kind": "tool", "arguments": {"text": "secret"}},
    {"id": "ask", "label": "Explain", "kind": "prompt", "scope": "item",
     "text": "Explain {{item.label}}", "send": True},
    {"id": "stop", "label": "Cancel", "kind": "response", "response": "cancel"},
    {"id": "go", "label": "Submit", "kind": "response", "response": "submit"},
]}]

CODE = '''
def handler(args, ctx):
    return "did: " + args["text"]
'''
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def session_for(tmp_path, rules, approver):
    cfg = tmp_path / "cfg"
    write_tool(cfg, "board", CODE, schema=SCHEMA, panels=PANELS)
    write_tool(cfg, "locked", CODE, schema=SCHEMA, panels=PANELS)
    write_config(cfg, {"tools": {"use": ["agent/board", "agent/locked"], "rules": rules}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    bus = ev.Bus()
    events: list = []
    bus.subscribe(events.append)
    host = PanelHost(bus)
    dispatcher = Dispatcher(agent, bus=bus, cwd=str(tmp_path), approver=approver, panels=host)
    return ActionPorts(host, Interactions(bus, attached=True, panels=host),
                       dispatcher.dispatch), events


async def show_board(session, owner="agent/board"):
    call = session.panels.open_call(owner=owner, declarations=declare(*PANELS), call_id="c0",
                                    source="model", turn_id=None)
    await call.update("board", {"op": "replace", "document": {"title": "Tasks", "blocks": [
        {"id": "list", "kind": "checklist", "items": [{"id": "t1", "label": "first task"}]}]}})
    call.close()


RULES = [{"match": "agent/board", "effect": "ask", "when": {
    "source": "arguments", "any": "text", "regex": "secret"}},
    {"match": "agent/locked", "effect": "deny"}]


async def test_tool_action_runs_through_dispatch_and_leaves_a_note(tmp_path):
    session, events = session_for(tmp_path, RULES, FixedApprover(True))
    await show_board(session)
    reply = await run_panel_action(session, PanelAction(
        panel="agent/board#board", action="redo", block="list", item="t1"))
    assert reply.ok and reply.message == "did: again t1"
    assert session.notes == ['The user ran "Re-run" on Tasks; agent/board returned: did: again t1']
    call = next(e for e in events if isinstance(e, ev.ToolCall))
    assert call.arguments == {"text": "again t1"}
    assert not any(isinstance(e, ev.ApprovalRequest) for e in events)


async def test_an_ask_rule_still_asks_a_click_is_no_approval(tmp_path):
    session, events = session_for(tmp_path, RULES, FixedApprover(False))
    await show_board(session)
    reply = await run_panel_action(session, PanelAction(panel="agent/board#board",
                                                        action="danger"))
    assert not reply.ok and reply.code == "approval_denied"
    assert any(isinstance(e, ev.ApprovalRequest) for e in events)
    assert session.notes[0].startswith('The user ran "Wipe" on Tasks; agent/board returned: ')


async def test_an_ask_rule_without_an_approver_is_approval_required(tmp_path):
    session, _ = session_for(tmp_path, RULES, None)
    await show_board(session)
    reply = await run_panel_action(session, PanelAction(panel="agent/board#board",
                                                        action="danger"))
    assert (reply.ok, reply.code) == (False, "approval_required")


async def test_a_deny_rule_still_denies(tmp_path):
    session, events = session_for(tmp_path, RULES, FixedApprover(True))
    await show_board(session, owner="agent/locked")
    reply = await run_panel_action(session, PanelAction(panel="agent/locked#board",
                                                        action="danger"))
    assert (reply.ok, reply.code, reply.message) == (False, "tool_denied",
                                                     "tool denied: agent/locked")
    assert not any(isinstance(e, ev.ApprovalRequest) for e in events)


async def test_prompt_action_drafts(tmp_path):
    session, events = session_for(tmp_path, RULES, None)
    await show_board(session)
    reply = await run_panel_action(session, PanelAction(
        panel="agent/board#board", action="ask", block="list", item="t1"))
    assert (reply.ok, reply.draft, reply.send) == (True, "Explain first task", True)
    assert not any(isinstance(e, ev.ToolCall) for e in events) and session.notes == []


async def test_unknown_panel_action_and_template_errors(tmp_path):
    session, _ = session_for(tmp_path, RULES, None)
    await show_board(session)
    reply = await run_panel_action(session, PanelAction(panel="agent/none#x", action="redo"))
    assert (reply.ok, reply.code) == (False, "panel_undeclared")
    reply = await run_panel_action(session, PanelAction(panel="agent/board#board", action="zz"))
    assert (reply.ok, reply.code, reply.message) == (False, "panel_invalid",
                                                     "panel board has no action 'zz'")
    reply = await run_panel_action(session, PanelAction(panel="agent/board#board", action="redo"))
    assert (reply.ok, reply.message) == (False, "action redo needs a block")


async def test_response_actions_answer_the_waiting_form(tmp_path):
    session, events = session_for(tmp_path, RULES, None)
    api = session.interactions.for_call(owner="agent/board", declarations=declare(*PANELS),
                                        call_id="c9")
    form = {"title": "Q", "blocks": [{"id": "f", "kind": "form", "fields": [
        {"id": "x", "kind": "text", "label": "X"}]}]}
    task = asyncio.ensure_future(api.request(panel="board", document=form))
    await asyncio.sleep(0)
    state = [e for e in events if isinstance(e, ev.PanelState)][-1]
    assert state.panel == "agent/board#board" and state.document["blocks"][0]["kind"] == "form"
    reply = await run_panel_action(session, PanelAction(panel="agent/board#board", action="go"))
    assert not reply.ok and reply.code == "interaction_invalid"
    reply = await run_panel_action(session, PanelAction(panel="agent/board#board", action="stop"))
    assert reply.ok
    assert await task == {"status": "cancelled"}
    reply = await run_panel_action(session, PanelAction(panel="agent/board#board", action="stop"))
    assert (reply.ok, reply.message) == (False, "no question is waiting here")

"""A panel action takes exactly what its scope names (issue 18, item 7): a panel action given
a block (or an item), or a block action given an item, is refused and nothing runs. Raw:
src/panels/actions.ts `resolveAction` ("a panel action takes no block or item", "a block
action takes no item")."""

from __future__ import annotations

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from tests.engine.session_kit import agent_config, make_session

TOOL = '''
def handler(args, ctx):
    return {"content": [{"type": "panel", "panel": "board", "op": "replace", "document": {
        "blocks": [{"id": "c", "kind": "checklist", "items": [{"id": "a", "label": "A"}]}]}}]}
'''
PANELS = [{"id": "board", "title": "Board", "actions": [
    {"id": "all", "label": "All", "kind": "tool", "scope": "panel", "arguments": {}},
    {"id": "one", "label": "One", "kind": "tool", "scope": "block", "arguments": {}}]}]


@pytest.mark.parametrize("action,block,item", [
    ("all", "c", None), ("all", None, "a"), ("all", "c", "a"), ("one", "c", "a")])
async def test_an_action_given_more_than_its_scope_is_refused(tmp_path, action, block, item):
    config = agent_config(tmp_path, use=["agent/board"], tools={"board": (TOOL, {
        "panels": PANELS})})
    h = make_session(tmp_path, [{"tool_calls": [{"name": "board", "arguments": {}}]},
                                {"text": "ok"}], config=config)
    await h.session.run_turn("board")
    calls = len(h.of(ev.ToolCall))
    reply = await h.session.handle(cmd.PanelAction(panel="agent/board#board", action=action,
                                                   block=block, item=item))
    assert not reply.ok and reply.code == "panel_invalid"
    assert "takes no" in reply.message
    assert len(h.of(ev.ToolCall)) == calls  # nothing ran
    ok = await h.session.handle(cmd.PanelAction(panel="agent/board#board", action=action,
                                                block="c" if action == "one" else None))
    assert ok.ok


RAW_PANELS = [{"id": "board", "title": "Board", "actions": [
    {"id": "redo", "label": "Redo", "kind": "tool", "scope": "item", "blocks": ["c"],
     "when": {"status": ["failed"]}, "arguments": {}},
    {"id": "all", "label": "All", "kind": "tool", "scope": "panel",
     "when": {"status": ["failed"]}, "arguments": {}}]}]
RAW_TOOL = '''
def handler(args, ctx):
    return {"content": [{"type": "panel", "panel": "board", "op": "replace", "document": {
        "blocks": [{"id": "c", "kind": "checklist", "items": [
                       {"id": "a", "label": "A", "status": "failed"}, {"id": "b", "label": "B"}]},
                   {"id": "d", "kind": "steps", "items": [
                       {"id": "s", "label": "S", "status": "failed"}]}]}}]}
'''


@pytest.mark.parametrize("action,block,item,why", [
    ("redo", "d", "s", "does not apply to block 'd'"),
    ("redo", "c", "b", "not available for an item with status pending"),
    ("all", None, None, "only offered for items with a status")])
async def test_raws_blocks_and_when_limit_where_an_action_runs(tmp_path, action, block, item,
                                                              why):
    """Raw: src/panels/actions.ts `resolveAction` (`blocks`, `when`)."""
    config = agent_config(tmp_path, use=["agent/board"], tools={"board": (RAW_TOOL, {
        "panels": RAW_PANELS})})
    h = make_session(tmp_path, [{"tool_calls": [{"name": "board", "arguments": {}}]},
                                {"text": "ok"}], config=config)
    await h.session.run_turn("board")
    calls = len(h.of(ev.ToolCall))
    reply = await h.session.handle(cmd.PanelAction(panel="agent/board#board", action=action,
                                                   block=block, item=item))
    assert not reply.ok and reply.code == "panel_invalid" and why in reply.message
    assert len(h.of(ev.ToolCall)) == calls
    ok = await h.session.handle(cmd.PanelAction(panel="agent/board#board", action="redo",
                                                block="c", item="a"))
    assert ok.ok and len(h.of(ev.ToolCall)) == calls + 1

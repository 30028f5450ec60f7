"""A panel action takes exactly what its scope names (issue 18, item 7): a panel action given
a block (or an item), or a block action given an item, is refused and nothing runs. Raw:
src/panels/actions.ts `resolveAction` ("a panel action takes no block or item", "a block
action takes no item")."""

from __future__ import annotations

import pytest

from raw_tui import bus as ev
from raw_tui import commands as cmd
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

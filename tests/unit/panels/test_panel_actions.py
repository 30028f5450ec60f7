"""Panel actions: lookup, templates, prompt drafts, tool actions through dispatch, the note."""

from __future__ import annotations

import pytest

from raw_tui.protocol.errors import PANEL_INVALID
from raw_tui.panels import (ActionTarget, PanelError, action_note, find_action, prompt_draft,
                            run_tool_action)
from raw_tui.panels.actions import fill_action, response_of
from raw_tui.tools.result import ToolResult, text_block

from panel_kit import declare

(DECL,) = declare({"id": "files", "title": "Changed files", "actions": [
    {"id": "explain", "label": "Explain", "kind": "prompt", "scope": "item",
     "text": "Explain {{item.label}} ({{ item.id }}) in {{block.id}} of {{panel.id}}"},
    {"id": "send", "label": "Summarize", "kind": "prompt", "text": "Summarize", "send": True},
    {"id": "rerun", "label": "Re-run", "kind": "tool", "scope": "item",
     "arguments": {"path": "{{item.id}}", "flags": ["-v", "{{block.id}}"], "n": 3}},
    {"id": "refresh", "label": "Refresh", "kind": "tool"},
    {"id": "ok", "label": "OK", "kind": "response", "response": "submit"},
]})

ITEM = ActionTarget(panel="files", block="list", item="src/a.py", item_label="a.py")


def test_find_action():
    assert find_action(DECL, "rerun").kind == "tool"
    with pytest.raises(PanelError) as info:
        find_action(DECL, "nope")
    assert (info.value.code, info.value.message) == (PANEL_INVALID, "panel files has no action 'nope'")


def test_prompt_draft_fills_templates():
    assert prompt_draft(find_action(DECL, "explain"), ITEM) == (
        "Explain a.py (src/a.py) in list of files", False)
    assert prompt_draft(find_action(DECL, "send"), ActionTarget(panel="files")) == ("Summarize", True)


def test_scope_needs_a_target():
    with pytest.raises(PanelError) as info:
        prompt_draft(find_action(DECL, "explain"), ActionTarget(panel="files", block="list"))
    assert info.value.message == "action explain needs an item"


def test_missing_template_value_names_the_path():
    target = ActionTarget(panel="files", block="list", item="x")
    with pytest.raises(PanelError) as info:
        prompt_draft(find_action(DECL, "explain"), target)
    assert info.value.message == "actions.explain.text: {{item.label}} has no value here"


def test_fill_tool_arguments_keeps_non_strings():
    assert fill_action(find_action(DECL, "rerun"), ITEM) == {
        "path": "src/a.py", "flags": ["-v", "list"], "n": 3}


def test_response_action():
    assert response_of(find_action(DECL, "ok")) == "submit"
    with pytest.raises(PanelError):
        response_of(find_action(DECL, "send"))


async def test_tool_action_goes_through_dispatch_as_user_action():
    seen = []

    async def dispatch(arguments, *, source):
        seen.append((arguments, source))
        return ToolResult(content=[text_block("3 tests passed")])

    outcome = await run_tool_action(find_action(DECL, "rerun"), ITEM, title="Changed files",
                                    owner="builtin/tester", dispatch=dispatch)
    assert seen == [({"path": "src/a.py", "flags": ["-v", "list"], "n": 3}, "user_action")]
    assert outcome.note == ('The user ran "Re-run" on Changed files; builtin/tester returned: '
                            '3 tests passed')


async def test_tool_action_result_error_dict_and_plain_dispatch():
    def dispatch(arguments, *, source):
        assert arguments == {} and source == "user_action"
        return {"isError": True, "code": "approval_denied",
                "content": [{"type": "text", "text": "approval denied for refresh"}]}

    outcome = await run_tool_action(find_action(DECL, "refresh"), ActionTarget(panel="files"),
                                    title="Changed files", owner="builtin/x", dispatch=dispatch)
    assert outcome.text == "approval denied for refresh"


async def test_only_tool_actions_run():
    with pytest.raises(PanelError):
        await run_tool_action(find_action(DECL, "send"), ITEM, title="t", owner="o",
                              dispatch=lambda a, source: None)


def test_action_note():
    assert action_note("Re-run", "Tests", "builtin/test", "ok") == (
        'The user ran "Re-run" on Tests; builtin/test returned: ok')

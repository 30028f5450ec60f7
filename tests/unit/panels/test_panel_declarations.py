"""Declarations from tool.json `panels`: defaults, every rule with its JSON path, icons."""

from __future__ import annotations

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.panels import implicit_declaration, parse_declarations


def parse(value, warnings=None):
    return parse_declarations(value, where=["panels"], file="tools/x/tool.json",
                              warnings=warnings)


def error(value) -> str:
    with pytest.raises(ConfigError) as info:
        parse(value)
    return str(info.value)


def test_defaults():
    (d,) = parse([{"id": "plan", "title": "Plan"}])
    assert (d.icon, d.placement, d.context, d.acp_plan, d.actions) == (
        "panel", "sidebar", "none", False, ())


def test_all_fields():
    (d,) = parse([{
        "id": "p-1_x", "title": "T", "icon": "checklist", "placement": "chat",
        "context": "summary", "acp_plan": True,
        "actions": [
            {"id": "go", "label": "Go", "kind": "prompt", "text": "run {{panel.id}}", "send": True},
            {"id": "redo", "label": "Redo", "scope": "item", "kind": "tool",
             "arguments": {"path": "{{item.id}}", "n": [1, "{{ item.label }}"]}},
            {"id": "submit", "label": "Submit", "kind": "response", "response": "submit"},
            {"id": "cancel", "label": "Cancel", "kind": "response", "response": "cancel"},
        ]}])
    assert d.placement == "chat" and d.context == "summary" and d.acp_plan
    assert [a.kind for a in d.actions] == ["prompt", "tool", "response", "response"]
    assert d.actions[0].send and d.actions[1].scope == "item"
    assert d.responds()


def test_panel_id_at_32_ok_33_invalid():
    assert parse([{"id": "a" * 32, "title": "T"}])[0].id == "a" * 32
    assert error([{"id": "a" * 33, "title": "T"}]).endswith(
        "panels[0].id: must match ^[a-z][a-z0-9_-]{0,31}$")


def test_four_panels_ok_five_rejected():
    four = [{"id": f"p{i}", "title": "T"} for i in range(4)]
    assert len(parse(four)) == 4
    assert error(four + [{"id": "p9", "title": "T"}]) == "tools/x/tool.json: panels: at most 4 panels"


@pytest.mark.parametrize("value, where, detail", [
    ({"id": "Plan", "title": "T"}, "panels[0].id", "must match"),
    ({"id": "9a", "title": "T"}, "panels[0].id", "must match"),
    ({"id": "a" * 33, "title": "T"}, "panels[0].id", "must match"),
    ({"id": "p"}, "panels[0].title", "required"),
    ({"id": "p", "title": ""}, "panels[0].title", "non-empty"),
    ({"id": "p", "title": "x" * 81}, "panels[0].title", "at most 80"),
    ({"id": "p", "title": "T", "oops": 1}, "panels[0].oops", "unknown key"),
    ({"id": "p", "title": "T", "placement": "left"}, "panels[0].placement", "sidebar, chat"),
    ({"id": "p", "title": "T", "context": "full"}, "panels[0].context", "none, summary"),
    ({"id": "p", "title": "T", "acp_plan": "yes"}, "panels[0].acp_plan", "true or false"),
    ({"id": "p", "title": "T", "actions": {}}, "panels[0].actions", "array"),
    ({"id": "p", "title": "T", "actions": [{"id": "a", "label": "A"}]},
     "panels[0].actions[0].kind", "required"),
    ({"id": "p", "title": "T", "actions": [{"id": "a", "label": "A", "kind": "open"}]},
     "panels[0].actions[0].kind", "prompt, tool, response"),
    ({"id": "p", "title": "T", "actions": [{"id": "a", "label": "A", "kind": "prompt"}]},
     "panels[0].actions[0].text", "required"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a", "label": "A", "kind": "tool", "text": "x"}]},
     "panels[0].actions[0].text", "unknown key"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a", "label": "A", "kind": "tool", "arguments": []}]},
     "panels[0].actions[0].arguments", "object"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a", "label": "A", "kind": "response", "response": "ok"}]},
     "panels[0].actions[0].response", "submit, cancel"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a b", "label": "A", "kind": "response", "response": "submit"}]},
     "panels[0].actions[0].id", "must match"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a", "label": "A", "kind": "prompt", "text": "{{panel.name}}"}]},
     "panels[0].actions[0].text", "unknown template {{panel.name}}"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a", "label": "A", "kind": "tool", "arguments": {"x": {"y": ["{{item.id}}"]}}}]},
     "panels[0].actions[0].arguments.x.y[0]", "needs scope item"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a", "label": "A", "kind": "prompt", "scope": "block", "text": "{{item.label}}"}]},
     "panels[0].actions[0].text", "needs scope item"),
    ({"id": "p", "title": "T", "actions": [
        {"id": "a", "label": "A", "kind": "prompt", "scope": "row", "text": "x"}]},
     "panels[0].actions[0].scope", "panel, block, item"),
])
def test_invalid_declarations_name_the_path(value, where, detail):
    message = error([value])
    assert message.startswith(f"tools/x/tool.json: {where}: "), message
    assert detail in message


def test_duplicate_ids():
    assert "duplicate panel id" in error([{"id": "p", "title": "A"}, {"id": "p", "title": "B"}])
    action = {"id": "a", "label": "A", "kind": "response", "response": "submit"}
    assert error([{"id": "p", "title": "T", "actions": [action, action]}]).startswith(
        "tools/x/tool.json: panels[0].actions[1].id: duplicate action id")


def test_sixteen_actions_ok_seventeen_rejected():
    actions = [{"id": f"a{i}", "label": "A", "kind": "prompt", "text": "x"} for i in range(17)]
    assert len(parse([{"id": "p", "title": "T", "actions": actions[:16]}])[0].actions) == 16
    assert "at most 16 actions" in error([{"id": "p", "title": "T", "actions": actions}])


def test_unknown_icon_falls_back_with_one_warning_each():
    warnings: list[str] = []
    got = parse([{"id": "a", "title": "A", "icon": "unicorn"},
                 {"id": "b", "title": "B", "icon": "checklist"},
                 {"id": "c", "title": "C", "icon": "sparkles"}], warnings)
    assert [d.icon for d in got] == ["panel", "checklist", "panel"]
    assert warnings == [
        "tools/x/tool.json: panels[0].icon: unknown icon 'unicorn'; using 'panel'",
        "tools/x/tool.json: panels[2].icon: unknown icon 'sparkles'; using 'panel'",
    ]


def test_unknown_icon_without_a_warnings_list_is_still_accepted():
    assert parse([{"id": "a", "title": "A", "icon": "zzz"}])[0].icon == "panel"


def test_not_a_list():
    assert error({"id": "p"}) == "tools/x/tool.json: panels: must be an array"


def test_implicit_declaration():
    d = implicit_declaration("status", "mcp/github")
    assert (d.id, d.title, d.placement, d.context) == ("status", "status", "sidebar", "none")
    assert d.responds()
    with pytest.raises(ValueError):
        implicit_declaration("Bad Id", "mcp/x")

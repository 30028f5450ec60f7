"""Raw's declaration keys load (issue 18: a tool written for Raw works unchanged): `open`,
and on actions `blocks`, `when`, `primary`, `confirm`, checked as Raw checks them. Ported
from Raw's tests/panels-protocol.test.ts, "declarations validate ids, limits, actions and
templates" (raw-tui's own limits are looser: docs/decisions.md)."""

from __future__ import annotations

import msgspec
import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.panels.declaration import parse_declarations


def parse(declaration):
    return parse_declarations([declaration], where=["panels"], file="tool.json")[0]


def primary(n, **extra):
    return {"id": f"p{n}", "label": "L", "scope": "item", "kind": "tool", "arguments": {},
            "primary": True, **extra}


def test_raws_declaration_keys_are_accepted():
    declared = parse({"id": "todo", "title": "Todo", "open": "first_update", "actions": [
        {"id": "complete", "label": "Mark done", "scope": "item", "blocks": ["items"],
         "kind": "tool", "arguments": {"todos": [{"id": "{{item.id}}"}]}, "primary": True,
         "when": {"status": ["pending", "in_progress"]}, "confirm": "Sure?"},
        {"id": "go", "label": "Continue", "scope": "panel", "kind": "prompt",
         "text": "Do {{panel.id}}"}]})
    assert declared.open == "first_update"
    action = declared.actions[0]
    assert (action.blocks, action.when.status, action.primary, action.confirm) == (
        ("items",), ("pending", "in_progress"), True, "Sure?")
    # over ACP the declaration goes out in Raw's shape
    wire = msgspec.json.decode(msgspec.json.encode(declared))
    assert wire["actions"][0]["when"] == {"status": ["pending", "in_progress"]}
    assert parse({"id": "t", "title": "T"}).open == "never"


@pytest.mark.parametrize("declaration,where", [
    ({"id": "t", "title": "T", "open": "always"}, "open"),
    ({"id": "t", "title": "T", "actions": [primary(1, scope="panel")]}, "primary"),
    ({"id": "t", "title": "T", "actions": [primary(1), primary(2)]}, "actions"),
    ({"id": "t", "title": "T", "actions": [primary(1, when={"status": ["nope"]})]}, "status"),
    ({"id": "t", "title": "T", "actions": [primary(1, when={"status": []})]}, "status"),
    ({"id": "t", "title": "T", "actions": [primary(1, primary=False)]}, "primary"),
    ({"id": "t", "title": "T", "actions": [{**primary(1), "scope": "panel", "primary": None,
                                            "blocks": ["b"]}]}, "blocks"),
    ({"id": "t", "title": "T", "actions": [primary(1, confirm="")]}, "confirm"),
])
def test_raws_declaration_keys_are_checked(declaration, where):
    actions = declaration.get("actions") or []
    for action in actions:
        if action.get("primary") is None:
            del action["primary"]
    with pytest.raises(ConfigError) as info:
        parse(declaration)
    assert where in str(info.value)

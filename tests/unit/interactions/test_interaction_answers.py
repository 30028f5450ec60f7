"""Answers checked against the form: required, option ids, selection counts, sizes, order."""

from __future__ import annotations

import pytest

from raw_tui.protocol.errors import INTERACTION_INVALID
from raw_tui.interactions import InteractionError, validate_answers

FORM = {"id": "f", "kind": "form", "fields": [
    {"id": "name", "kind": "text", "label": "Name", "required": True, "max_bytes": 8},
    {"id": "bio", "kind": "text", "label": "Bio", "multiline": True},
    {"id": "size", "kind": "single_select", "label": "Size",
     "options": [{"id": "s", "label": "S"}, {"id": "m", "label": "M"}]},
    {"id": "tags", "kind": "multi_select", "label": "Tags", "min_selected": 1, "max_selected": 2,
     "options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}, {"id": "c", "label": "C"}]},
]}


def bad(answers) -> str:
    with pytest.raises(InteractionError) as info:
        validate_answers(FORM, answers)
    assert info.value.code == INTERACTION_INVALID
    return info.value.message


def test_valid_and_normalized():
    assert validate_answers(FORM, {"name": "Ann", "tags": ["c", "a"], "bio": None}) == {
        "name": "Ann", "tags": ["a", "c"]}
    assert validate_answers(FORM, {"name": "Ann", "bio": "two\nlines", "size": "m"}) == {
        "name": "Ann", "bio": "two\nlines", "size": "m"}


def test_required():
    assert bad({}) == "name: required"
    assert bad({"name": "   "}) == "name: required"


def test_text_rules():
    assert validate_answers(FORM, {"name": "12345678"})["name"] == "12345678"
    assert bad({"name": "123456789"}) == "name: at most 8 bytes"
    assert bad({"name": "éééé1"}) == "name: at most 8 bytes"
    assert bad({"name": "a\nb"}) == "name: must be one line"
    assert bad({"name": "a\x1b"}) == "name: control characters are not allowed"
    assert bad({"name": 5}) == "name: must be text"


def test_select_rules():
    assert bad({"name": "A", "size": "xl"}) == "size: must be one of the option ids s, m"
    assert bad({"name": "A", "tags": ["a", "b", "c"]}) == "tags: choose at most 2"
    assert bad({"name": "A", "tags": ["a", "a"]}) == "tags: option 'a' chosen twice"
    assert bad({"name": "A", "tags": ["z"]}) == "tags: 'z' is not one of the option ids a, b, c"
    assert bad({"name": "A", "tags": "a"}) == "tags: must be a list of option ids"


def test_min_selected_applies_when_required():
    form = {"fields": [{"id": "t", "kind": "multi_select", "label": "T", "required": True,
                        "min_selected": 2,
                        "options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]}]}
    with pytest.raises(InteractionError) as info:
        validate_answers(form, {"t": ["a"]})
    assert info.value.message == "t: choose at least 2"
    with pytest.raises(InteractionError) as info:
        validate_answers(form, {"t": []})
    assert info.value.message == "t: required"


def test_unknown_field_and_shape():
    assert bad({"name": "A", "age": 3}) == "age: no such field in the form"
    assert bad(["name"]) == "answers: must be an object"

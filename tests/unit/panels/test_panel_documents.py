"""Documents and blocks: every limit at the boundary, pointers in messages, unknown kinds."""

from __future__ import annotations

import pytest

from raw_tui.protocol.errors import PANEL_INVALID, PANEL_TOO_LARGE
from raw_tui.panels import PanelError, checked_document, is_valid


def err(document) -> PanelError:
    with pytest.raises(PanelError) as info:
        checked_document(document)
    return info.value


def msg(document) -> str:
    e = err(document)
    assert e.code == PANEL_INVALID
    return e.message


def one(block: dict) -> dict:
    return {"blocks": [block]}


def ok(document) -> None:
    assert checked_document(document) == document


# top-level fields ---------------------------------------------------------------------

def test_empty_document_is_valid():
    ok({})


def test_the_example_pointer():
    doc = one({"id": "c", "kind": "checklist", "items": [{"id": "a", "label": "A", "oops": 1}]})
    assert msg(doc) == "/blocks/0/items/0/oops: unknown field"


@pytest.mark.parametrize("field, limit", [("title", 80), ("subtitle", 120), ("summary", 120)])
def test_text_limits(field, limit):
    ok({field: "é" * limit})
    assert msg({field: "é" * (limit + 1)}) == f"/{field}: at most {limit} characters"


def test_context_summary_is_bytes():
    ok({"context_summary": "x" * 2048})
    ok({"context_summary": "é" * 1024})
    assert msg({"context_summary": "é" * 1024 + "x"}) == "/context_summary: at most 2048 bytes"


def test_progress_and_status():
    ok({"progress": {"done": 3, "total": 3}, "status": "done"})
    assert msg({"progress": {"done": 4, "total": 3}}) == "/progress/done: must not be more than total"
    assert msg({"progress": {"done": 1}}) == "/progress/total: required"
    assert msg({"progress": {"done": True, "total": 2}}) == "/progress/done: must be an integer"
    assert msg({"progress": {"done": -1, "total": 2}}) == "/progress/done: must be at least 0"
    assert msg({"status": "busy"}) == "/status: must be one of idle, active, done, failed"


def test_unknown_top_level_field():
    assert msg({"title": "x", "colour": "red"}) == "/colour: unknown field"
    assert msg([]) == "/: must be an object"


def test_twenty_blocks_ok_twenty_one_invalid():
    blocks = [{"id": f"b{i}", "kind": "markdown", "text": "x"} for i in range(21)]
    ok({"blocks": blocks[:20]})
    assert msg({"blocks": blocks}) == "/blocks: at most 20 blocks"


def test_block_ids_unique_and_shaped():
    block = {"id": "b", "kind": "markdown", "text": ""}
    assert msg({"blocks": [block, block]}) == "/blocks/1/id: duplicate block id 'b'"
    ok(one({**block, "id": "A" * 32}))
    assert msg(one({**block, "id": "A" * 33})) == "/blocks/0/id: must match ^[A-Za-z0-9_-]{1,32}$"
    assert msg(one({**block, "id": "a.b"})).startswith("/blocks/0/id: must match")
    assert msg(one({"kind": "markdown", "text": ""})) == "/blocks/0/id: required"
    assert msg(one({"id": "b", "text": ""})) == "/blocks/0/kind: required"
    assert msg(one({**block, "title": "t" * 81})) == "/blocks/0/title: at most 80 characters"


def test_control_characters_rejected_newline_and_tab_kept():
    ok({"title": "a\tb", "blocks": [{"id": "m", "kind": "markdown", "text": "a\nb\tc"}]})
    for bad in ("\x00", "\x1b[31m", "\r", "\x7f", "\x85"):
        assert msg({"summary": f"x{bad}y"}) == (
            "/summary: control characters other than newline and tab are not allowed")
    deep = one({"id": "c", "kind": "checklist",
                "items": [{"id": "a", "label": "A", "items": [{"id": "b", "label": "\x07"}]}]})
    assert msg(deep).startswith("/blocks/0/items/0/items/0/label: control characters")


def test_size_limit_64k():
    def doc(n):
        return {"blocks": [{"id": f"m{i}", "kind": "markdown", "text": "x" * n} for i in range(4)]}
    base = len(b'{"blocks":[]}') + 4 * len(b'{"id":"m0","kind":"markdown","text":""}') + 3
    room = 65536 - base
    exact = doc(room // 4)
    extra = room - 4 * (room // 4)
    exact["blocks"][0]["text"] += "x" * extra
    ok(exact)
    exact["blocks"][0]["text"] += "x"
    e = err(exact)
    assert e.code == PANEL_TOO_LARGE
    assert e.message == "the document is 65537 bytes as JSON; the limit is 65536"


def test_not_json():
    assert msg({"title": object()}).startswith("/: not a JSON value")


# blocks ----------------------------------------------------------------------------------

def form(*fields):
    return one({"id": "f", "kind": "form", "fields": list(fields)})


def text_field(**kw):
    return {"id": "t", "kind": "text", "label": "Name", **kw}


def select(kind="single_select", n=2, **kw):
    return {"id": "s", "kind": kind, "label": "Pick",
            "options": [{"id": f"o{i}", "label": f"O{i}"} for i in range(n)], **kw}


def test_form_fields_1_to_8():
    ok(form(*[{**text_field(), "id": f"t{i}"} for i in range(8)]))
    assert msg(form(*[{**text_field(), "id": f"t{i}"} for i in range(9)])) == (
        "/blocks/0/fields: at most 8 fields")
    assert msg(form()) == "/blocks/0/fields: needs at least 1 fields"
    assert msg(form(text_field(), text_field())) == "/blocks/0/fields/1/id: duplicate id 't'"


def test_form_field_rules():
    ok(form(text_field(multiline=True, max_bytes=8192, description="d" * 500, required=True)))
    assert msg(form(text_field(max_bytes=8193))) == "/blocks/0/fields/0/max_bytes: must be at most 8192"
    assert msg(form(text_field(max_bytes=0))) == "/blocks/0/fields/0/max_bytes: must be at least 1"
    assert msg(form(text_field(label=""))) == "/blocks/0/fields/0/label: must not be empty"
    ok(form(text_field(label="l" * 200)))
    assert msg(form(text_field(label="l" * 201))) == "/blocks/0/fields/0/label: at most 200 characters"
    assert msg(form(text_field(description="d" * 501))) == (
        "/blocks/0/fields/0/description: at most 500 characters")
    assert msg(form(text_field(options=[]))) == "/blocks/0/fields/0/options: unknown field"
    assert msg(form({**text_field(), "kind": "date"})) == (
        "/blocks/0/fields/0/kind: must be one of text, single_select, multi_select")
    assert msg(form(text_field(required="yes"))) == "/blocks/0/fields/0/required: must be true or false"


def test_form_options_1_to_32():
    ok(form(select(n=32)))
    assert msg(form(select(n=33))) == "/blocks/0/fields/0/options: at most 32 options"
    assert msg(form(select(n=0))) == "/blocks/0/fields/0/options: needs at least 1 options"
    dup = select()
    dup["options"][1]["id"] = "o0"
    assert msg(form(dup)) == "/blocks/0/fields/0/options/1/id: duplicate id 'o0'"
    assert msg(form({"id": "s", "kind": "single_select", "label": "P"})) == (
        "/blocks/0/fields/0/options: required")


def test_multi_select_bounds():
    ok(form(select("multi_select", n=3, min_selected=1, max_selected=3)))
    assert msg(form(select("multi_select", n=3, max_selected=4))) == (
        "/blocks/0/fields/0/max_selected: must be at most 3")
    assert msg(form(select("multi_select", n=3, min_selected=3, max_selected=2))) == (
        "/blocks/0/fields/0/min_selected: must not be more than max_selected")
    assert msg(form(select("single_select", min_selected=1))) == (
        "/blocks/0/fields/0/min_selected: unknown field")


def test_mermaid_and_markdown_16k():
    ok(one({"id": "m", "kind": "mermaid", "source": "x" * 16384}))
    assert msg(one({"id": "m", "kind": "mermaid", "source": "x" * 16385})) == (
        "/blocks/0/source: at most 16384 bytes")
    assert msg(one({"id": "m", "kind": "mermaid", "source": ""})) == "/blocks/0/source: must not be empty"
    ok(one({"id": "m", "kind": "markdown", "text": "é" * 8192}))
    assert msg(one({"id": "m", "kind": "markdown", "text": "é" * 8192 + "x"})) == (
        "/blocks/0/text: at most 16384 bytes")


def nest(depth: int) -> dict:
    item = {"id": f"d{depth}", "label": "x"}
    for level in range(depth - 1, 0, -1):
        item = {"id": f"d{level}", "label": "x", "items": [item]}
    return item


def test_checklist_nesting_3_levels():
    ok(one({"id": "c", "kind": "checklist", "items": [nest(3)]}))
    assert msg(one({"id": "c", "kind": "checklist", "items": [nest(4)]})) == (
        "/blocks/0/items/0/items/0/items/0/items: checklists nest at most 3 levels")


def test_checklist_200_items_counting_nested():
    items = [{"id": f"i{k}", "label": "x"} for k in range(199)]
    items[0]["items"] = [{"id": "child", "label": "x"}]
    ok(one({"id": "c", "kind": "checklist", "items": items}))
    items.append({"id": "last", "label": "x"})
    assert msg(one({"id": "c", "kind": "checklist", "items": items})) == (
        "/blocks/0/items: a checklist block holds at most 200 items (this would make 201)")


def test_checklist_statuses_and_unique_ids():
    for status in ("pending", "in_progress", "done", "skipped", "blocked", "failed"):
        ok(one({"id": "c", "kind": "checklist", "items": [{"id": "a", "label": "A", "status": status}]}))
    assert msg(one({"id": "c", "kind": "checklist",
                    "items": [{"id": "a", "label": "A", "status": "todo"}]})).startswith(
        "/blocks/0/items/0/status: must be one of pending, in_progress")
    dup = one({"id": "c", "kind": "checklist",
               "items": [{"id": "a", "label": "A", "items": [{"id": "a", "label": "B"}]}]})
    assert msg(dup) == "/blocks/0/items/0/items/0/id: duplicate id 'a'"


def steps(n):
    return one({"id": "s", "kind": "steps", "items": [{"id": f"s{i}", "label": "x"} for i in range(n)]})


def test_steps_30():
    ok(steps(30))
    assert msg(steps(31)) == "/blocks/0/items: a steps block holds at most 30 steps (this would make 31)"


def test_progress_block():
    ok(one({"id": "p", "kind": "progress", "done": 2.5, "total": 10, "label": "MB", "unit": "MB"}))
    assert msg(one({"id": "p", "kind": "progress", "done": 11, "total": 10})) == (
        "/blocks/0/done: must not be more than total")
    assert msg(one({"id": "p", "kind": "progress", "done": 0, "total": 0})) == (
        "/blocks/0/total: must be more than 0")
    assert msg(one({"id": "p", "kind": "progress", "done": "1", "total": 2})) == (
        "/blocks/0/done: must be a finite number")


def kv(n):
    return one({"id": "k", "kind": "key_value",
                "items": [{"key": f"k{i}", "value": i} for i in range(n)]})


def test_key_value_50():
    ok(kv(50))
    assert msg(kv(51)) == "/blocks/0/items: a key_value block holds at most 50 pairs (this would make 51)"
    dup = kv(2)
    dup["blocks"][0]["items"][1]["key"] = "k0"
    assert msg(dup) == "/blocks/0/items/1/key: duplicate key 'k0'"
    assert msg(one({"id": "k", "kind": "key_value", "items": [{"key": "a", "value": {}}]})) == (
        "/blocks/0/items/0/value: must be a string, a number, true/false or null")


def table(n_cols, rows=()):
    return one({"id": "t", "kind": "table",
                "columns": [{"id": f"c{i}", "label": f"C{i}"} for i in range(n_cols)],
                "rows": list(rows)})


def test_table_1_to_8_columns():
    ok(table(1))
    ok(table(8))
    assert msg(table(0)) == "/blocks/0/columns: needs at least 1 columns"
    assert msg(table(9)) == "/blocks/0/columns: at most 8 columns"


def test_table_rows():
    ok(table(2, [{"id": "r", "cells": {"c0": "a", "c1": 2}}]))
    assert msg(table(2, [{"id": "r", "cells": {"c7": "a"}}])) == "/blocks/0/rows/0/cells/c7: no such column"
    rows = [{"id": f"r{i}", "cells": {}} for i in range(201)]
    ok(table(1, rows[:200]))
    assert msg(table(1, rows)).endswith("at most 200 rows (this would make 201)")


def test_timeline_and_files():
    ok(one({"id": "t", "kind": "timeline",
            "events": [{"text": "a"}, {"id": "e", "time": "10:00", "text": "b", "level": "error"}]}))
    assert msg(one({"id": "t", "kind": "timeline", "events": [{"text": "a", "level": "fatal"}]})) == (
        "/blocks/0/events/0/level: must be one of info, success, warning, error")
    ok(one({"id": "f", "kind": "files", "items": [{"path": "/a", "status": "added", "note": "n"}]}))
    assert msg(one({"id": "f", "kind": "files", "items": [{"path": "/a"}, {"path": "/a"}]})) == (
        "/blocks/0/items/1/path: duplicate path '/a'")


def test_unknown_kind_is_kept_when_common_fields_are_valid():
    block = {"id": "x", "kind": "sparkline", "title": "Load", "data": [1, 2.5, None, {"a": "b"}]}
    assert checked_document(one(block)) == one(block)
    assert msg(one({**block, "id": "bad id"})).startswith("/blocks/0/id: must match")
    assert msg(one({**block, "data": ["\x1b"]})).startswith("/blocks/0/data/0: control characters")


def test_is_valid():
    assert is_valid({"title": "x"})
    assert not is_valid({"title": 1})

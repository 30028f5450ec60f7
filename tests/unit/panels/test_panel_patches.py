"""The patch vocabulary on every block kind; all or nothing; errors point into the patch."""

from __future__ import annotations

import copy

import pytest

from raw_tui.panels.document import validate_document
from raw_tui.panels.errors import Invalid
from raw_tui.panels.patch import apply_patches

DOC = {
    "title": "Work",
    "summary": "s",
    "blocks": [
        {"id": "cl", "kind": "checklist", "items": [
            {"id": "a", "label": "A", "status": "done"},
            {"id": "b", "label": "B", "items": [{"id": "b1", "label": "B1"}]}]},
        {"id": "st", "kind": "steps", "items": [{"id": "s1", "label": "one"}]},
        {"id": "kv", "kind": "key_value", "items": [{"key": "model", "value": "m"}]},
        {"id": "tb", "kind": "table", "columns": [{"id": "n", "label": "N"}],
         "rows": [{"id": "r1", "cells": {"n": 1}}]},
        {"id": "tl", "kind": "timeline", "events": [{"id": "e1", "text": "start"}]},
        {"id": "fs", "kind": "files", "items": [{"path": "/a.py", "status": "modified"}]},
        {"id": "pg", "kind": "progress", "done": 1, "total": 2},
        {"id": "md", "kind": "markdown", "text": "hi"},
    ],
}


def run(*patches, doc=None):
    doc = DOC if doc is None else doc
    before = copy.deepcopy(doc)
    out = apply_patches(doc, list(patches))
    assert doc == before, "the stored document changed"
    validate_document(out)
    return out


def fails(*patches, doc=None) -> str:
    doc = DOC if doc is None else doc
    before = copy.deepcopy(doc)
    with pytest.raises(Invalid) as info:
        apply_patches(doc, list(patches))
    assert doc == before
    return f"{info.value.pointer()}: {info.value.message}"


def block(doc, block_id):
    return next(b for b in doc["blocks"] if b["id"] == block_id)


def test_set_and_delete_fields():
    out = run({"op": "set", "field": "status", "value": "active"},
              {"op": "set", "field": "summary", "value": None},
              {"op": "set", "field": "progress", "value": {"done": 1, "total": 2}})
    assert out["status"] == "active" and "summary" not in out and out["progress"]["total"] == 2
    assert fails({"op": "set", "field": "status", "value": "busy"}) == (
        "/patches/0/value: must be one of idle, active, done, failed")
    assert fails({"op": "set", "field": "blocks", "value": []}) == (
        "/patches/0/field: blocks change with set_block and remove_block")
    assert fails({"op": "set", "field": "colour", "value": 1}).startswith(
        "/patches/0/field: must be one of title")
    assert fails({"op": "set", "field": "title"}) == "/patches/0/value: required"


def test_set_block_replace_insert_move():
    new = {"id": "md", "kind": "markdown", "text": "changed"}
    out = run({"op": "set_block", "block": new})
    assert block(out, "md")["text"] == "changed" and len(out["blocks"]) == 8
    out = run({"op": "set_block", "block": {"id": "n", "kind": "markdown", "text": ""},
               "before": "cl"})
    assert out["blocks"][0]["id"] == "n"
    out = run({"op": "set_block", "block": new, "before": "cl"})
    assert [b["id"] for b in out["blocks"]][:2] == ["md", "cl"] and len(out["blocks"]) == 8
    assert fails({"op": "set_block", "block": new, "before": "zz"}) == (
        "/patches/0/before: no block 'zz'")
    assert fails({"op": "set_block", "block": {"id": "x", "kind": "markdown"}}) == (
        "/patches/0/block/text: required")


def test_set_block_respects_20_blocks():
    doc = {"blocks": [{"id": f"b{i}", "kind": "markdown", "text": ""} for i in range(19)]}
    out = run({"op": "set_block", "block": {"id": "b19", "kind": "markdown", "text": ""}}, doc=doc)
    assert len(out["blocks"]) == 20
    assert fails({"op": "set_block", "block": {"id": "b20", "kind": "markdown", "text": ""}},
                 doc=out) == "/patches/0/block: a document holds at most 20 blocks"


def test_remove_block():
    out = run({"op": "remove_block", "id": "md"})
    assert "md" not in [b["id"] for b in out["blocks"]]
    assert fails({"op": "remove_block", "id": "zz"}) == "/patches/0/id: no block 'zz'"


def test_upsert_checklist_update_keeps_children_and_adds_nested():
    out = run({"op": "upsert_items", "block": "cl",
               "items": [{"id": "b", "label": "B!", "status": "in_progress"}]},
              {"op": "upsert_items", "block": "cl", "parent": "b1",
               "items": [{"id": "b1x", "label": "deep"}]},
              {"op": "upsert_items", "block": "cl", "items": [{"id": "c", "label": "C"}]})
    items = block(out, "cl")["items"]
    assert items[1]["label"] == "B!" and items[1]["items"][0]["items"][0]["id"] == "b1x"
    assert items[2]["id"] == "c"


def test_upsert_checklist_rules():
    assert fails({"op": "upsert_items", "block": "cl", "parent": "zz",
                  "items": [{"id": "x", "label": "x"}]}) == "/patches/0/parent: no item 'zz'"
    deep = run({"op": "upsert_items", "block": "cl", "parent": "b1",
                "items": [{"id": "b2", "label": "level 3"}]})
    assert fails({"op": "upsert_items", "block": "cl", "parent": "b2",
                  "items": [{"id": "x", "label": "level 4"}]}, doc=deep) == (
        "/patches/0/parent: checklists nest at most 3 levels")
    assert fails({"op": "upsert_items", "block": "cl",
                  "items": [{"id": "x", "label": "x", "items": [{"id": "a", "label": "dup"}]}]}) == (
        "/patches/0/items: duplicate id 'a'")
    assert fails({"op": "upsert_items", "block": "cl", "items": [{"label": "no id"}]}) == (
        "/patches/0/items/0/id: required")
    assert fails({"op": "upsert_items", "block": "cl",
                  "items": [{"id": "a", "label": "A", "status": "nope"}]}).startswith(
        "/patches/0/items/0/status: must be one of")
    assert fails({"op": "upsert_items", "block": "md", "items": [{"id": "a"}]}) == (
        "/patches/0/block: a markdown block has no items to patch")
    assert fails({"op": "upsert_items", "block": "st", "parent": "s1",
                  "items": [{"id": "x", "label": "x"}]}) == (
        "/patches/0/parent: a steps block is not nested")


def test_upsert_checklist_count_limit():
    doc = {"blocks": [{"id": "c", "kind": "checklist",
                       "items": [{"id": f"i{k}", "label": "x"} for k in range(199)]}]}
    out = run({"op": "upsert_items", "block": "c", "items": [{"id": "last", "label": "x"}]}, doc=doc)
    assert fails({"op": "upsert_items", "block": "c", "items": [{"id": "more", "label": "x"}]},
                 doc=out) == "/patches/0/items: a checklist block holds at most 200 items (this would make 201)"
    # updating an existing item at the limit is fine
    run({"op": "upsert_items", "block": "c", "items": [{"id": "i0", "label": "y"}]}, doc=out)


@pytest.mark.parametrize("block_id, item, key", [
    ("st", {"id": "s2", "label": "two", "status": "done"}, "id"),
    ("kv", {"key": "tokens", "value": 12}, "key"),
    ("tb", {"id": "r2", "cells": {"n": "x"}}, "id"),
    ("tl", {"id": "e2", "text": "more"}, "id"),
    ("fs", {"path": "/b.py", "status": "added"}, "path"),
])
def test_upsert_and_remove_on_flat_kinds(block_id, item, key):
    field = "rows" if block_id == "tb" else "events" if block_id == "tl" else "items"
    by = {"id": "ids", "key": "keys", "path": "paths"}[key]
    out = run({"op": "upsert_items", "block": block_id, "items": [item]})
    assert block(out, block_id)[field][-1] == item
    changed = dict(block(out, block_id)[field][0])
    out = run({"op": "upsert_items", "block": block_id, "items": [changed]}, doc=out)
    assert len(block(out, block_id)[field]) == 2
    out = run({"op": "remove_items", "block": block_id, by: [item[key]]}, doc=out)
    assert len(block(out, block_id)[field]) == 1
    assert fails({"op": "remove_items", "block": block_id, by: ["nope"]}) == (
        f"/patches/0/{by}/0: no {key} 'nope' in block '{block_id}'")


def test_remove_items_wrong_name_list():
    assert fails({"op": "remove_items", "block": "kv", "ids": ["model"]}) == (
        "/patches/0/ids: items of a key_value block are removed by keys")
    assert fails({"op": "remove_items", "block": "fs", "keys": ["/a.py"]}) == (
        "/patches/0/keys: items of a files block are removed by paths")
    assert fails({"op": "remove_items", "block": "cl"}) == "/patches/0/ids: required"


def test_remove_checklist_item_removes_children():
    out = run({"op": "remove_items", "block": "cl", "ids": ["b"]})
    assert [i["id"] for i in block(out, "cl")["items"]] == ["a"]
    out = run({"op": "remove_items", "block": "cl", "ids": ["b1"]})
    assert block(out, "cl")["items"][1]["items"] == []


def test_table_rows_are_checked_against_columns():
    assert fails({"op": "upsert_items", "block": "tb", "items": [{"id": "r9", "cells": {"q": 1}}]}) == (
        "/patches/0/items/0/cells/q: no such column")


def test_append_events_keeps_the_last_max():
    out = run({"op": "append_events", "block": "tl",
               "events": [{"text": f"e{i}"} for i in range(5)], "max": 3})
    assert [e["text"] for e in block(out, "tl")["events"]] == ["e2", "e3", "e4"]
    out = run({"op": "append_events", "block": "tl", "events": [{"text": "x"}] * 199})
    assert len(block(out, "tl")["events"]) == 200
    out = run({"op": "append_events", "block": "tl", "events": [{"text": "y"}]}, doc=out)
    assert len(block(out, "tl")["events"]) == 200 and block(out, "tl")["events"][-1]["text"] == "y"
    assert fails({"op": "append_events", "block": "cl", "events": [{"text": "x"}]}) == (
        "/patches/0/block: append_events needs a timeline block, not checklist")
    assert fails({"op": "append_events", "block": "tl", "events": [{"id": "e1", "text": "dup"}]}) == (
        "/patches/0/events: duplicate id 'e1'")
    assert fails({"op": "append_events", "block": "tl", "events": [{"text": "x"}], "max": 201}) == (
        "/patches/0/max: must be at most 200")


def test_all_or_nothing():
    assert fails({"op": "set", "field": "title", "value": "New"},
                 {"op": "remove_block", "id": "md"},
                 {"op": "upsert_items", "block": "cl", "items": [{"id": "x", "label": ""}]}) == (
        "/patches/2/items/0/label: must not be empty")


def test_patch_list_shape():
    assert fails() == "/patches: needs at least 1 patches"
    assert fails("x") == "/patches/0: must be an object"
    assert fails({"op": "move"}).startswith("/patches/0/op: must be one of set, set_block")
    assert fails({"op": "remove_block", "id": "md", "extra": 1}) == "/patches/0/extra: unknown field"
    many = [{"op": "set", "field": "title", "value": "t"}] * 201
    assert fails(*many) == "/patches: at most 200 patches"
    run(*many[:200])


def test_an_op_or_field_that_is_not_a_string_is_invalid_not_a_crash():
    # a list or an object cannot be hashed: the lookup must not raise TypeError
    assert fails({"op": []}).startswith("/patches/0/op: must be one of set, set_block")
    assert fails({"op": {"x": 1}}).startswith("/patches/0/op: must be one of")
    assert fails({"op": "set", "field": ["title"], "value": "t"}).startswith(
        "/patches/0/field: must be one of title, subtitle")


def test_upsert_assigns_the_given_fields_and_keeps_the_others():
    # docs/panels.md: shallow field assignment; `{id, status}` ticks an item, keeping its label
    out = run({"op": "upsert_items", "block": "cl", "items": [{"id": "b1", "status": "done"}]},
              {"op": "upsert_items", "block": "cl", "items": [{"id": "b", "note": "n"}]},
              {"op": "upsert_items", "block": "fs", "items": [{"path": "/a.py", "note": "x"}]},
              {"op": "upsert_items", "block": "fs", "items": [{"path": "/a.py",
                                                               "status": "added"}]})
    items = block(out, "cl")["items"]
    assert items[1]["items"][0] == {"id": "b1", "label": "B1", "status": "done"}
    assert items[1]["label"] == "B" and items[1]["note"] == "n" and items[1]["items"]
    assert block(out, "fs")["items"][0] == {"path": "/a.py", "status": "added", "note": "x"}


def test_upsert_merged_item_is_validated_and_a_new_item_must_be_complete():
    assert fails({"op": "upsert_items", "block": "cl",
                  "items": [{"id": "a", "status": "nope"}]}).startswith(
        "/patches/0/items/0/status: must be one of")
    assert fails({"op": "upsert_items", "block": "cl", "items": [{"id": "new", "status": "done"}]}
                 ) == "/patches/0/items/0/label: required"

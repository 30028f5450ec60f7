"""Raw's block vocabulary is accepted as Raw writes it (issue 18, item 3) and progress is
derived as Raw derives it (item 4). Ported from Raw's tests/panels-protocol.test.ts; each test
names its case."""

from __future__ import annotations

import copy

import pytest

from raw_tui.panels.document import checked_document, validate_document
from raw_tui.panels.errors import Invalid, PanelError
from raw_tui.panels.patch import apply_patches
from raw_tui.panels.render import derived_progress, render_text, summarize


def item(n, **extra):
    return {"id": f"i{n}", "label": f"Item {n}", **extra}


def checklist(items, **extra):
    return {"id": "c", "kind": "checklist", "items": items, **extra}


def doc(*blocks):
    return {"blocks": list(blocks)}


FULL = doc(
    checklist([item(1, status="done", priority="high", note="n", ref={"path": "a.ts", "line": 3},
                    children=[item(2)])]),
    {"id": "s", "kind": "steps", "items": [{"id": "p1", "label": "Plan", "status": "done",
                                            "detail": "ok", "started_at": 1, "ended_at": 2}]},
    {"id": "p", "kind": "progress", "label": "Index", "value": 4, "max": 10},
    {"id": "pi", "kind": "progress", "indeterminate": True},
    {"id": "k", "kind": "key_value", "entries": [{"key": "Branch", "value": "main",
                                                  "ref": {"path": "x"}}]},
    {"id": "t", "kind": "table", "columns": [{"id": "a", "label": "A", "align": "end"}],
     "rows": [{"id": "r", "status": "failed", "cells": {"a": "1"}}]},
    {"id": "m", "kind": "markdown", "text": "# hi"},
    {"id": "e", "kind": "timeline", "max": 5, "events": [
        {"id": "e1", "at": 1, "level": "info", "label": "x", "detail": "y"}]},
    {"id": "f", "kind": "files", "entries": [{"path": "a.ts", "status": "added", "line": 1,
                                              "label": "l"}]},
    {"id": "g", "kind": "mermaid", "source": "graph TD\n  A --> B", "fallback": "A then B"})


def test_every_block_kind_accepts_its_minimum_and_a_full_example():
    """Raw: tests/panels-protocol.test.ts, "every block kind accepts its minimum and a full
    example"."""
    assert checked_document(copy.deepcopy(FULL)) == FULL
    for block in FULL["blocks"]:
        validate_document(doc(block))
    validate_document(doc())


def test_unknown_kinds_keep_their_fallback():
    """Raw: tests/panels-protocol.test.ts, "unknown fields are rejected in documents and known
    blocks, unknown kinds keep their fallback"."""
    validate_document(doc({"id": "future", "kind": "gantt", "tasks": [1, 2],
                           "fallback": "Gantt: 2 tasks"}))
    text = render_text(doc({"id": "future", "kind": "gantt", "fallback": "Gantt: 2 tasks"}))
    assert text.split("\n")[-1] == "Gantt: 2 tasks"
    assert "unsupported block: gantt" in render_text(doc({"id": "future", "kind": "gantt"}))
    with pytest.raises(PanelError, match="/blocks/0/items/0/oops: unknown field"):
        checked_document(doc(checklist([{**item(1), "oops": 1}])))
    with pytest.raises(PanelError, match="/blocks/0/fallback: at most 4096 bytes"):
        checked_document(doc({"id": "m", "kind": "markdown", "text": "",
                               "fallback": "x" * 4097}))


def test_children_count_toward_200_items_and_nest_at_most_3_levels():
    """Raw: tests/panels-protocol.test.ts, "the 200 item limit counts children and depth stops
    at 3"."""
    leafs = [item(i + 1) for i in range(199)]
    validate_document(doc(checklist([item(0, children=leafs)])))
    with pytest.raises(Invalid, match="200 items"):
        validate_document(doc(checklist([item(0, children=leafs + [item(500)])])))

    def nest(levels):
        return item(99) if levels == 0 else item(levels, children=[nest(levels - 1)])

    validate_document(doc(checklist([nest(2)])))
    with pytest.raises(Invalid, match="levels"):
        validate_document(doc(checklist([nest(3)])))
    with pytest.raises(Invalid, match="duplicate"):
        validate_document(doc(checklist([item(1, children=[item(1)])])))
    # item ids are Raw's: dots, up to 64 characters (block ids stay at 32, no dot)
    validate_document(doc(checklist([{**item(1), "id": "a.b-" + "x" * 60}])))
    with pytest.raises(Invalid, match="64"):
        validate_document(doc(checklist([{**item(1), "id": "x" * 65}])))
    with pytest.raises(Invalid):
        validate_document(doc({"id": "a.b", "kind": "markdown", "text": ""}))
    with pytest.raises(Invalid, match="one of items or children"):
        validate_document(doc(checklist([item(1, children=[], items=[])])))


@pytest.mark.parametrize("block", [
    {"id": "p", "kind": "progress", "value": 5, "max": 4},
    {"id": "p", "kind": "progress", "value": 1, "max": 0},
    {"id": "p", "kind": "progress", "value": -1, "max": 4},
    {"id": "p", "kind": "progress", "value": float("inf"), "max": 4},
    {"id": "p", "kind": "progress", "value": 1},
    {"id": "p", "kind": "progress", "indeterminate": True, "value": 1},
    {"id": "p", "kind": "progress", "indeterminate": False},
    {"id": "t", "kind": "table", "columns": [{"id": "a", "label": "A"}],
     "rows": [{"id": "r", "cells": {"b": "x"}}]},
    {"id": "t", "kind": "table", "columns": [{"id": "a", "label": "A", "align": "middle"}]},
    {"id": "e", "kind": "timeline", "max": 201, "events": []},
    {"id": "e", "kind": "timeline", "max": 1, "events": [
        {"id": "a", "at": 1, "level": "info", "label": "a"},
        {"id": "b", "at": 2, "level": "info", "label": "b"}]},
    checklist([item(1, priority="urgent")]),
    {"id": "k", "kind": "key_value", "entries": [{"key": "a", "value": "1"},
                                                 {"key": "a", "value": "2"}]},
    {"id": "f", "kind": "files", "entries": [{"path": "a"}, {"path": "a"}]},
    {"id": "f", "kind": "files", "entries": [{"path": "a", "line": 0}]},
])
def test_progress_table_timeline_and_ids_enforce_their_contracts(block):
    """Raw: tests/panels-protocol.test.ts, "progress, table, timeline and markdown enforce
    their own contracts" and "ids follow their grammars and are unique within their scope"."""
    with pytest.raises(Invalid):
        validate_document(doc(block))


def test_derived_progress_counts_leaf_items_then_steps():
    """Raw: tests/panels-protocol.test.ts, "derived progress counts leaf items, then steps,
    and derived summary names the active item" (the counts; raw-tui's summary says
    `N/M done`)."""
    nested = doc(checklist([item(1, status="done"), item(2, status="in_progress", children=[
        item(3, status="done"), item(4, status="skipped"),
        item(5, status="in_progress", label="Deep task")])]))
    assert derived_progress(nested) == (3, 4)
    assert summarize(nested) == "3/4 done"
    steps_only = doc({"id": "s", "kind": "steps", "items": [item(1, status="done"), item(2)]})
    assert derived_progress(steps_only) == (1, 2)
    checklist_wins = doc({"id": "s", "kind": "steps", "items": [item(1)]},
                         {**checklist([item(2, status="done")]), "id": "c2"})
    assert derived_progress(checklist_wins) == (1, 1)
    assert derived_progress(doc({"id": "m", "kind": "markdown", "text": "x"})) is None
    assert derived_progress(doc(checklist([]), {"id": "s", "kind": "steps",
                                                "items": [item(1)]})) == (0, 0)
    assert derived_progress({**nested, "progress": {"done": 9, "total": 9}}) == (9, 9)
    # raw-tui's own nesting (`items`) counts the same way
    ours = doc(checklist([item(1, status="done"), item(2, items=[
        item(3, status="done"), item(4, status="skipped"), item(5)])]))
    assert derived_progress(ours) == (3, 4)


def test_text_render_shows_every_raw_field():
    """Raw: tests/panels-protocol.test.ts, "text rendering follows the glyph table for every
    kind" (raw-tui's glyphs; the fields are all there)."""
    text = render_text(FULL, unicode=False)
    for expected in ("[x] Item 1 [high] - n (a.ts:3)", "  [ ] Item 2", "1. [x] Plan - ok (0s)",
                     "Index", "4/10 (40%)", "in progress", "Branch  main (x)",
                     "x - y", "A a.ts:1  l", "A then B"):
        assert expected in text, f"missing: {expected}\n{text}"


BASE = doc(
    checklist([item(1, status="pending"), item(2, children=[item(3)])], title="Tasks"),
    {"id": "t", "kind": "table", "columns": [{"id": "a", "label": "A"}],
     "rows": [{"id": "r1", "cells": {"a": "1"}}]},
    {"id": "k", "kind": "key_value", "entries": [{"key": "x", "value": "1"}]},
    {"id": "f", "kind": "files", "entries": [{"path": "a.ts", "status": "added"}]},
    {"id": "e", "kind": "timeline", "max": 3, "events": [
        {"id": "e1", "at": 1, "level": "info", "label": "one"}]},
    {"id": "m", "kind": "markdown", "text": "hi"})


def patched(*patches):
    before = copy.deepcopy(BASE)
    out = apply_patches(BASE, list(patches))
    assert BASE == before
    validate_document(out)
    return out


def test_upsert_items_on_raw_shapes():
    """Raw: tests/panels-protocol.test.ts, "upsert_items merges given fields, keeps omitted
    ones and appends new items"."""
    out = patched({"op": "upsert_items", "block": "c", "items": [
        {"id": "i1", "status": "done"}, {"id": "i9", "label": "Nine"}]})
    assert out["blocks"][0]["items"][0] == {"id": "i1", "label": "Item 1", "status": "done"}
    out = apply_patches(out, [{"op": "upsert_items", "block": "c", "parent": "i2", "items": [
        {"id": "i10", "label": "Under two"}, {"id": "i3", "status": "done"}]}])
    two = next(i for i in out["blocks"][0]["items"] if i["id"] == "i2")
    assert [c["id"] for c in two["children"]] == ["i3", "i10"] and "items" not in two
    assert two["children"][0]["status"] == "done"
    out = patched(
        {"op": "upsert_items", "block": "t", "items": [{"id": "r1", "cells": {"a": "2"}},
                                                       {"id": "r2", "cells": {"a": "3"}}]},
        {"op": "upsert_items", "block": "k", "items": [{"key": "x", "value": "2"},
                                                       {"key": "y", "value": "3"}]},
        {"op": "upsert_items", "block": "f", "items": [{"path": "a.ts", "status": "modified"},
                                                       {"path": "b.ts"}]})
    _, table, kv, files, *_ = out["blocks"]
    assert table["rows"] == [{"id": "r1", "cells": {"a": "2"}}, {"id": "r2", "cells": {"a": "3"}}]
    assert kv["entries"] == [{"key": "x", "value": "2"}, {"key": "y", "value": "3"}]
    assert files["entries"] == [{"path": "a.ts", "status": "modified"}, {"path": "b.ts"}]
    assert "items" not in kv and "items" not in files


def test_remove_items_on_raw_shapes():
    """Raw: tests/panels-protocol.test.ts, "remove_items takes exactly the selector that fits
    the block kind and removes checklist children"."""
    out = patched({"op": "remove_items", "block": "c", "ids": ["i3"]})
    assert out["blocks"][0]["items"][1]["children"] == []
    out = patched({"op": "remove_items", "block": "t", "ids": ["r1"]},
                  {"op": "remove_items", "block": "k", "keys": ["x"]},
                  {"op": "remove_items", "block": "f", "paths": ["a.ts"]},
                  {"op": "remove_items", "block": "e", "ids": ["e1"]})
    blocks = out["blocks"]
    assert [blocks[1]["rows"], blocks[2]["entries"], blocks[3]["entries"],
            blocks[4]["events"]] == [[], [], [], []]


def test_append_events_keeps_the_newest_up_to_the_blocks_max():
    """Raw: tests/panels-protocol.test.ts, "append_events keeps the newest events up to max
    and only works on timelines"."""
    def event(n):
        return {"id": f"n{n}", "at": n, "level": "info", "label": f"event {n}"}

    out = patched({"op": "append_events", "block": "e", "events": [event(2), event(3),
                                                                   event(4)]})
    assert [e["id"] for e in out["blocks"][4]["events"]] == ["n2", "n3", "n4"]
    with pytest.raises(Invalid, match="duplicate"):
        patched({"op": "append_events", "block": "e", "events": [{**event(1), "id": "e1"}]})

"""Property: no sequence of updates (valid or not) leaves an invalid stored document, and a
rejected update leaves the stored document exactly as it was."""

from __future__ import annotations

import asyncio
import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raw_tui.protocol.bus import Bus
from raw_tui.frozen import thaw
from raw_tui.panels import PanelError, PanelHost, is_valid

from panel_kit import declare

# Mostly valid values, with a few broken ones mixed in, so that about half the updates pass.
IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"] * 4 + ["x" * 33, "bad id"])
BLOCK_IDS = st.sampled_from(["cl", "st", "kv", "tb", "tl", "fs"] * 3 + ["md", "new", "zz"])
LABELS = st.sampled_from(["ok", "label", "é", "日本"] * 6 + ["", "x" * 501, "ok\x1b"])
STATUS = st.sampled_from(["pending", "in_progress", "done", "skipped", "blocked", "failed"] * 3
                         + ["??"])


@st.composite
def checklist_item(draw, depth=0):
    item = {"id": draw(IDS), "label": draw(LABELS)}
    if draw(st.booleans()):
        item["status"] = draw(STATUS)
    if depth < 4 and draw(st.integers(0, 3)) == 0:
        item["items"] = draw(st.lists(checklist_item(depth + 1), max_size=2))
    return item


def flat_item(block):
    if block == "kv":
        return st.fixed_dictionaries({"key": IDS, "value": st.one_of(st.none(), st.integers(),
                                                                      LABELS)})
    if block == "fs":
        return st.fixed_dictionaries({"path": IDS}, optional={"status": st.sampled_from(
            ["added", "modified", "nope"])})
    if block == "tb":
        return st.fixed_dictionaries({"id": IDS, "cells": st.dictionaries(
            st.sampled_from(["n", "q"]), st.integers(), max_size=2)})
    if block == "tl":
        return st.fixed_dictionaries({"text": LABELS}, optional={"id": IDS})
    return st.fixed_dictionaries({"id": IDS, "label": LABELS}, optional={"status": STATUS})


BLOCKS = st.sampled_from([
    {"id": "md", "kind": "markdown", "text": "hello"},
    {"id": "new", "kind": "progress", "done": 1, "total": 2},
    {"id": "new", "kind": "progress", "done": 3, "total": 2},
    {"id": "zz", "kind": "mystery", "anything": [1, "two"]},
    {"id": "cl", "kind": "checklist", "items": []},
    {"id": "tb", "kind": "table", "columns": [{"id": "q", "label": "Q"}]},
])


@st.composite
def patch_op(draw):
    op = draw(st.sampled_from(["set", "set_block", "remove_block"] + ["upsert_items"] * 4
                              + ["remove_items"] * 2 + ["append_events"] * 2))
    if op == "set":
        field = draw(st.sampled_from(["title", "summary", "status", "progress", "blocks", "x"]))
        value = draw(st.one_of(st.none(), LABELS, st.just({"done": 1, "total": 2}),
                               st.just({"done": 3, "total": 2}), st.just("active")))
        return {"op": op, "field": field, "value": value}
    if op == "set_block":
        patch = {"op": op, "block": draw(BLOCKS)}
        if draw(st.booleans()):
            patch["before"] = draw(BLOCK_IDS)
        return patch
    if op == "remove_block":
        return {"op": op, "id": draw(BLOCK_IDS)}
    block = draw(BLOCK_IDS)
    if op == "upsert_items":
        items = draw(st.lists(checklist_item() if block == "cl" else flat_item(block),
                              min_size=1, max_size=3))
        patch = {"op": op, "block": block, "items": items}
        if draw(st.integers(0, 3)) == 0:
            patch["parent"] = draw(IDS)
        return patch
    if op == "remove_items":
        right = {"kv": "keys", "fs": "paths"}.get(block, "ids")
        by = draw(st.sampled_from([right] * 3 + ["ids", "keys", "paths"]))
        return {"op": op, "block": block, by: draw(st.lists(IDS, min_size=1, max_size=2))}
    block = draw(st.sampled_from(["tl"] * 3 + [block]))
    return {"op": op, "block": block, "events": draw(st.lists(flat_item("tl"), min_size=1,
                                                              max_size=3)),
            **({"max": draw(st.integers(0, 3))} if draw(st.booleans()) else {})}


START = {
    "title": "T",
    "blocks": [
        {"id": "cl", "kind": "checklist", "items": [
            {"id": "a", "label": "A", "items": [{"id": "b", "label": "B"}]}]},
        {"id": "st", "kind": "steps", "items": [{"id": "a", "label": "A"}]},
        {"id": "kv", "kind": "key_value", "items": [{"key": "a", "value": 1}]},
        {"id": "tb", "kind": "table", "columns": [{"id": "n", "label": "N"}],
         "rows": [{"id": "a", "cells": {"n": 1}}]},
        {"id": "tl", "kind": "timeline", "events": [{"id": "a", "text": "go"}]},
        {"id": "fs", "kind": "files", "items": [{"path": "a"}]},
    ],
}

UPDATES = st.lists(st.lists(patch_op(), min_size=1, max_size=3), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(UPDATES)
def test_random_patch_sequences_keep_the_document_valid(updates):
    asyncio.run(_run(updates))


async def _run(updates):
    host = PanelHost(Bus())
    call = host.open_call(owner="t", declarations=declare({"id": "p", "title": "P"}),
                          call_id="c", source="model", turn_id=None)
    await call.update("p", {"op": "replace", "document": START})
    accepted = 0
    for patches in updates:
        revision, before = call.get("p")
        before = thaw(before)
        try:
            await call.update("p", {"op": "patch", "patches": copy.deepcopy(patches)})
            accepted += 1
        except PanelError:
            assert thaw(call.get("p")[1]) == before and call.get("p")[0] == revision
        stored = thaw(call.get("p")[1])
        assert is_valid(stored), stored
    assert call.get("p")[0] == 1 + accepted

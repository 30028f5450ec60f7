"""The built-in todo tool: one checklist panel, replace and merge, the confirmation line."""

from __future__ import annotations

import pytest

from raw_tui.frozen import freeze
from raw_tui.panels import PanelHost
from raw_tui.tools.context import ToolContext

from panel_kit import Recorder, load_tool

TODO, MANIFEST, DECLS = load_tool("todo")
OWNER = "builtin/todo"


@pytest.fixture
def rec():
    return Recorder()


@pytest.fixture
def host(rec):
    return PanelHost(rec.bus)


def ctx_for(host, call_id="c1"):
    panels = host.open_call(owner=OWNER, declarations=DECLS, call_id=call_id, source="model",
                            turn_id="t1")
    return ToolContext(cwd="/tmp", tool_call_id=call_id, panels=panels, identity=OWNER)


async def run(host, args, call_id="c1"):
    ctx = ctx_for(host, call_id)
    assert TODO.validate_args(freeze(args)) is None
    out = await TODO.handler(freeze(args), ctx)
    ctx.panels.close()
    return out


def test_manifest():
    assert MANIFEST["id"] == "todo" and MANIFEST["name"] == "todo"
    (d,) = DECLS
    assert (d.id, d.placement, d.context, d.acp_plan, d.icon) == (
        "todo", "sidebar", "summary", True, "checklist")
    assert len(MANIFEST["description"]) < 200


async def test_replace_answers_with_the_confirmation_line(host, rec):
    out = await run(host, {"todos": [
        {"content": "Read", "status": "done"},
        {"content": "Write", "status": "in_progress"},
        {"id": "sub", "content": "unit tests", "parent": "t2"},
    ]})
    assert out == "panel todo updated (revision 1): 1/3 done"
    _rev, doc = host.get(f"{OWNER}#todo")
    items = doc["blocks"][0]["items"]
    assert [i["id"] for i in items] == ["t1", "t2"]
    assert items[1]["items"][0] == {"id": "sub", "label": "unit tests", "status": "pending"}
    assert doc["progress"] == {"done": 1, "total": 3} and doc["status"] == "active"
    (receipt,) = rec.receipts()
    assert (receipt.panel, receipt.owner, receipt.title, receipt.revision, receipt.summary) == (
        "todo", OWNER, "Todo", 1, "1/3 done")


async def test_merge_updates_and_adds(host):
    await run(host, {"todos": [{"id": "a", "content": "A"}, {"id": "b", "content": "B"}],
                     "title": "Plan"})
    out = await run(host, {"mode": "merge", "todos": [
        {"id": "a", "content": "A", "status": "done"},
        {"content": "C", "parent": "b", "note": "new"}]}, call_id="c2")
    assert out == "panel todo updated (revision 2): 1/3 done"
    doc = host.get(f"{OWNER}#todo")[1]
    assert doc["title"] == "Plan"
    items = doc["blocks"][0]["items"]
    assert items[0]["status"] == "done"
    assert items[1]["items"] == [{"id": "t1", "label": "C", "status": "pending", "note": "new"}]


async def test_all_finished_marks_the_panel_done(host):
    await run(host, {"todos": [{"content": "A", "status": "done"},
                               {"content": "B", "status": "skipped"}]})
    assert host.get(f"{OWNER}#todo")[1]["status"] == "done"


async def test_reaching_revision_n(host, rec):
    for n in range(1, 6):
        todos = [{"id": f"s{k}", "content": f"step {k}", "status": "done" if k < n - 1 else "pending"}
                 for k in range(5)]
        assert await run(host, {"todos": todos}, call_id=f"c{n}") == (
            f"panel todo updated (revision {n}): {n - 1}/5 done")
    assert [r.revision for r in rec.receipts()] == [1, 2, 3, 4, 5]
    assert [s.revision for s in rec.states()] == [1, 2, 3, 4, 5]


def test_validate_args():
    v = TODO.validate_args
    assert v({"todos": [{"id": "a", "content": "x"}, {"id": "a", "content": "y"}]}) == (
        "todos[1].id: duplicate id 'a'")
    assert v({"todos": [{"content": "x", "parent": "zz"}]}) == (
        "todo t1: parent 'zz' is not in the list")
    assert v({"todos": [{"id": "a", "content": "x", "parent": "b"},
                        {"id": "b", "content": "y", "parent": "a"}]}).endswith(
        "its parents form a cycle")
    chain = [{"id": "l1", "content": "x"}] + [
        {"id": f"l{k}", "content": "x", "parent": f"l{k - 1}"} for k in range(2, 5)]
    assert v({"todos": chain[:3]}) is None
    assert v({"todos": chain}) == "todo l4: todos nest at most 3 levels"
    assert v({"mode": "merge", "todos": [{"content": "x", "parent": "on-the-panel"}]}) is None


async def test_merge_with_unknown_parent_is_a_tool_error(host):
    out = await run(host, {"mode": "merge", "todos": [{"content": "x", "parent": "nope"}]})
    assert out["isError"] and out["code"] == "panel_invalid"
    assert out["content"][0]["text"] == "todo list rejected: todo t1: parent 'nope' is not in the list"


async def test_empty_replace_clears(host):
    await run(host, {"todos": [{"content": "A"}]})
    assert await run(host, {"todos": []}, call_id="c2") == "panel todo updated (revision 2): 0/0 done"

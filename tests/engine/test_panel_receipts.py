"""Receipts as Raw keeps them (issue 18, items 5, 6 and 7): one per panel a call touched, at
its last revision; every stored receipt at most 1,024 bytes, however long an id the tool
sent; an action that updates no panel still leaves a `user_action` receipt; every tool result
is capped to `max_output_bytes`, a stop's too. Ported from Raw's tests/panels-host.test.ts
(each test names its case)."""

from __future__ import annotations

import msgspec

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.session.store import HistoryStore
from tests.engine.session_kit import agent_config, make_session

TODO = [{"id": "todo", "title": "Todo", "actions": [
    {"id": "noop", "label": "Look", "kind": "tool", "arguments": {"op": "nothing"}}]}]
STREAMING = '''
async def handler(args, ctx):
    if args.get("op") == "nothing":
        return {"content": [{"type": "text", "text": "looked"}]}
    if args.get("op") == "ids":
        return {"content": [{"type": "text", "text": "ok"},
                            {"type": "panel", "op": "close"},
                            {"type": "panel", "panel": None, "op": "close"},
                            {"type": "panel", "panel": 7, "op": "close"},
                            {"type": "panel", "panel": "x" * 10000, "op": "close"}]}
    doc = lambda *labels: {"blocks": [{"id": "c", "kind": "checklist", "items": [
        {"id": f"i{n}", "label": label} for n, label in enumerate(labels)]}]}
    await ctx.panels.update("todo", {"op": "replace", "document": doc("a")})
    await ctx.panels.update("todo", {"op": "replace", "document": doc("a", "b")})
    return {"content": [{"type": "text", "text": "planned"}]}
'''
SCHEMA = {"type": "object", "properties": {"op": {"type": "string"}}}


def session(tmp_path, lines, **kw):
    config = agent_config(tmp_path, use=["agent/todo"], tools={"todo": (STREAMING, {
        "panels": TODO, "schema": SCHEMA})}, **kw)
    store = HistoryStore(tmp_path / "history.sqlite3")
    return make_session(tmp_path, lines, config=config, store=store), store


def stored_receipts(h, store):
    rows = [msgspec.json.decode(raw) for raw in store.raw_events(h.session.session_id)]
    return [(row, raw) for row, raw in zip(rows, store.raw_events(h.session.session_id))
            if row.get("type") == "panel_receipt"]


async def test_one_receipt_per_touched_panel_per_call(tmp_path):
    """Raw: tests/panels-host.test.ts, "revisions are host-assigned, commit only on
    markCommitted and roll back to the last committed state" (one receipt per touched panel
    per call)."""
    h, store = session(tmp_path, [{"tool_calls": [{"name": "todo", "arguments": {}}]},
                                  {"text": "ok"}])
    await h.session.run_turn("plan")
    assert [r.revision for r in h.of(ev.PanelReceipt)] == [2]
    assert [row["revision"] for row, _ in stored_receipts(h, store)] == [2]
    receipt = h.of(ev.PanelReceipt)[0]
    assert (receipt.summary, receipt.op) == ("0/2 done", "replace")
    # the receipt is in the history before the call's result
    kinds = [type(e).__name__ for e in h.events]
    assert kinds.index("PanelReceipt") < kinds.index("ToolResultEvent")
    store.close()


async def test_receipts_are_bounded_however_long_the_panel_id(tmp_path):
    """Raw: tests/panels-host.test.ts, "malformed panel ids in result blocks become bounded
    rejections, never a failed run"."""
    h, store = session(tmp_path, [{"tool_calls": [{"name": "todo", "arguments": {"op": "ids"}}]},
                                  {"text": "ok"}])
    assert (await h.session.run_turn("go")).status == "completed"
    rows = stored_receipts(h, store)
    assert len(rows) == 4
    for row, raw in rows:
        assert len(raw) <= 1024, len(raw)
        assert row["error"]["code"] in ("panel_invalid", "panel_undeclared")
    assert len(h.model.requests[1].messages[-1].text) < 4000  # the model's lines too
    store.close()


async def test_an_action_that_updates_no_panel_leaves_a_user_action_receipt(tmp_path):
    """Raw: src/panels/host.ts `unchangedReceipt` (the receipt of a panel the call did not
    change), as its dashboard records a tool action."""
    h, store = session(tmp_path, [{"tool_calls": [{"name": "todo", "arguments": {}}]},
                                  {"text": "ok"}])
    await h.session.run_turn("plan")
    reply = await h.session.handle(cmd.PanelAction(panel="agent/todo#todo", action="noop"))
    assert reply.ok and reply.message == "looked"
    last = h.of(ev.PanelReceipt)[-1]
    assert (last.panel, last.source, last.revision, last.summary) == ("todo", "user_action", 2,
                                                                      "0/2 done")
    assert [row["source"] for row, _ in stored_receipts(h, store)] == ["model", "user_action"]
    store.close()


async def test_a_stop_is_capped_to_max_output_bytes(tmp_path):
    """raw-tui's cap on every result (Raw caps every result it returns): `tool_not_exposed`
    for a 1,000-character name under `max_output_bytes: 256`."""
    name = "n" * 1000
    h, store = session(tmp_path, [{"tool_calls": [{"name": name, "arguments": {}}]},
                                  {"text": "ok"}], max_output_bytes=256)
    await h.session.run_turn("go")
    result = h.of(ev.ToolResultEvent)[0]
    assert result.code == "tool_not_exposed" and result.truncated is True
    assert len(msgspec.json.encode(result.content)) <= 256 + 64
    assert sum(len(b["text"].encode()) for b in result.content) <= 256
    store.close()

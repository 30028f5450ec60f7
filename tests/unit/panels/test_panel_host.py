"""The host: revisions, every error code, limits, eviction, receipts, frames, model lines."""

from __future__ import annotations

import asyncio

import pytest

from raw_tui.protocol.bus import PanelState
from raw_tui.protocol.errors import (PANEL_CLOSED_CONTEXT, PANEL_INVALID, PANEL_LIMIT,
                                     PANEL_NOT_OWNED, PANEL_RATE_LIMITED, PANEL_REVISION_CONFLICT,
                                     PANEL_TOO_LARGE, PANEL_UNDECLARED, PANEL_UNKNOWN)
from raw_tui.panels import PanelError, PanelHost

from panel_kit import OWNER, checklist_doc, declare
from panel_kit import call, decls, host, rec  # noqa: F401 - fixtures

REPLACE = {"op": "replace", "document": checklist_doc()}


def patch(*patches, **extra):
    return {"op": "patch", "patches": list(patches), **extra}


def set_title(title):
    return patch({"op": "set", "field": "title", "value": title})


async def code_of(call, panel, body) -> str:
    with pytest.raises(PanelError) as info:
        await call.update(panel, body)
    return info.value.code


async def test_revisions_grow_by_one_and_rejections_use_none(call):
    assert await call.update("plan", REPLACE) == 1
    assert await call.update("plan", set_title("Two")) == 2
    assert await code_of(call, "plan", set_title("x" * 81)) == PANEL_INVALID
    assert await call.update("plan", set_title("Three")) == 3
    assert await call.update("plan", {"op": "close"}) == 4
    assert call.get("plan") == (4, None)
    assert await code_of(call, "plan", set_title("x")) == PANEL_UNKNOWN
    assert await call.update("plan", REPLACE) == 5


async def test_patch_or_close_before_replace_is_unknown(call):
    assert await code_of(call, "plan", set_title("x")) == PANEL_UNKNOWN
    assert await code_of(call, "plan", {"op": "close"}) == PANEL_UNKNOWN
    assert call.get("plan") == (0, None)


async def test_base_revision(call):
    assert await call.update("plan", {**REPLACE, "base_revision": 0}) == 1
    assert await call.update("plan", set_title("a", ) | {"base_revision": 1}) == 2
    with pytest.raises(PanelError) as info:
        await call.update("plan", set_title("b") | {"base_revision": 1})
    assert info.value.code == PANEL_REVISION_CONFLICT
    assert info.value.message == "base_revision 1 is not the current revision 2"


async def test_ownership_and_declaration(host, call):
    assert await call.update(f"{OWNER}#plan", REPLACE) == 1
    with pytest.raises(PanelError) as info:
        await call.update("builtin/other#plan", REPLACE)
    assert info.value.code == PANEL_NOT_OWNED
    assert info.value.message == ("panel builtin/other#plan belongs to builtin/other; "
                                  "builtin/demo may only update its own panels")
    with pytest.raises(PanelError) as info:
        await call.update("nope", REPLACE)
    assert (info.value.code, info.value.message) == (
        PANEL_UNDECLARED, "builtin/demo does not declare panel 'nope'")
    with pytest.raises(PanelError):
        call.get("builtin/other#plan")


async def test_rate_limit_200_accepted_per_panel_per_call(host, decls):
    call = host.open_call(owner=OWNER, declarations=decls, call_id="c", source="model",
                          turn_id=None)
    await call.update("plan", REPLACE)
    for i in range(199):
        await call.update("plan", set_title(f"t{i}"))
    assert call.get("plan")[0] == 200
    assert await code_of(call, "plan", set_title("one more")) == PANEL_RATE_LIMITED
    assert call.get("plan")[0] == 200
    assert await call.update("other", REPLACE) == 1  # per panel
    call.close()
    again = host.open_call(owner=OWNER, declarations=decls, call_id="d", source="model",
                           turn_id=None)
    assert await again.update("plan", set_title("fresh call")) == 201


async def test_closed_context_after_the_handler_returned(call, rec):
    await call.update("plan", REPLACE)
    call.close()
    assert await code_of(call, "plan", set_title("late")) == PANEL_CLOSED_CONTEXT
    lines = call.apply_result_blocks([{"type": "panel", "panel": "plan", "op": "close"}])
    assert lines == ["panel plan update rejected: panel_closed_context the call has returned; "
                     "panels update only while it runs"]
    assert call.get("plan")[0] == 1
    # a late update's rejection is kept too, at once (the call's receipts went out)
    assert [r.error.code if r.error else None for r in rec.receipts()] == [
        None, PANEL_CLOSED_CONTEXT, PANEL_CLOSED_CONTEXT]


async def test_too_large(call):
    big = {"op": "replace", "document": {"blocks": [
        {"id": f"m{i}", "kind": "markdown", "text": "x" * 16000} for i in range(5)]}}
    assert await code_of(call, "plan", big) == PANEL_TOO_LARGE
    await call.update("plan", {"op": "replace", "document": {"blocks": [
        {"id": f"m{i}", "kind": "markdown", "text": "x" * 16000} for i in range(4)]}})
    assert await code_of(call, "plan", patch(
        {"op": "set_block", "block": {"id": "m9", "kind": "markdown", "text": "x" * 2000}})) == PANEL_TOO_LARGE


@pytest.mark.parametrize("body, message", [
    ({"op": "replace"}, "/document: required for replace"),
    ({"op": "patch"}, "/patches: required for patch"),
    ({"op": "close", "document": {}}, "/document: not allowed with close"),
    ({"op": "replace", "document": {}, "patches": []}, "/patches: not allowed with replace"),
    ({"op": "upsert"}, "/op: must be one of replace, patch, close"),
    ({"op": "replace", "document": {}, "extra": 1}, "/extra: unknown field"),
    ({"op": "replace", "document": {}, "base_revision": -1},
     "/base_revision: must be an integer, at least 0"),
    ({"op": "replace", "document": {}, "type": "text"}, '/type: must be "panel"'),
    ("replace", "/: an update must be an object"),
])
async def test_body_shape(call, body, message):
    with pytest.raises(PanelError) as info:
        await call.update("plan", body)
    assert (info.value.code, info.value.message) == (PANEL_INVALID, message)


async def test_a_rejected_update_changes_nothing_stored(call, rec):
    await call.update("plan", REPLACE)
    before = call.get("plan")
    frames = len(rec.states())
    bad = patch({"op": "set", "field": "title", "value": "changed"},
                {"op": "upsert_items", "block": "c", "items": [{"id": "z", "label": "", }]})
    assert await code_of(call, "plan", bad) == PANEL_INVALID
    assert call.get("plan") == before
    assert len(rec.states()) == frames


async def test_stored_documents_are_detached_and_frozen(call):
    document = checklist_doc()
    await call.update("plan", {"op": "replace", "document": document})
    document["title"] = "mutated by the tool afterwards"
    document["blocks"][0]["items"].clear()
    revision, stored = call.get("plan")
    assert stored["title"] == "Plan" and len(stored["blocks"][0]["items"]) == 3
    with pytest.raises(TypeError):
        stored["title"] = "x"


# receipts and the model's lines ---------------------------------------------------------

async def test_receipts_for_accepted_and_rejected(call, rec):
    await call.update("plan", REPLACE)
    await code_of(call, "plan", set_title("x" * 81))
    await code_of(call, "nope", REPLACE)
    assert rec.receipts() == []  # a call's receipts go out when it closes
    call.close()
    ok, bad, undeclared = rec.receipts()
    assert (ok.panel, ok.owner, ok.title, ok.revision, ok.summary, ok.op, ok.source, ok.turn_id) == (
        "plan", OWNER, "Plan", 1, "0/3 done", "replace", "model", "t1")
    assert ok.error is not bad.error
    assert (bad.revision, bad.summary, bad.op, bad.error.code) == (1, "0/3 done", "patch", PANEL_INVALID)
    assert bad.error.message == "/patches/0/value: at most 80 characters"
    assert (undeclared.panel, undeclared.revision, undeclared.error.code) == ("nope", 0, PANEL_UNDECLARED)


async def test_result_blocks_lines(call, rec):
    lines = call.apply_result_blocks([
        {"type": "panel", "panel": "plan", "op": "replace", "document": checklist_doc(2)},
        {"type": "panel", "panel": "plan", "op": "patch", "patches": [
            {"op": "upsert_items", "block": "c", "items": [{"id": "i0", "label": "x", "status": "done"}]}]},
        {"type": "panel", "panel": "plan", "op": "patch", "base_revision": 1,
         "patches": [{"op": "set", "field": "summary", "value": "stale"}]},
        {"type": "panel", "panel": "other", "op": "replace",
         "document": {"title": "Other", "summary": "ready"}},
    ])
    assert lines == ["panel plan update rejected: panel_revision_conflict "
                     "base_revision 1 is not the current revision 2"]
    assert call.confirmation_lines() == ["panel plan updated (revision 2): 1/2 done",
                                         "panel other updated (revision 1): ready"]


async def test_at_most_five_rejection_lines(call):
    blocks = [{"type": "panel", "panel": "plan", "op": "patch", "patches": []}] * 7
    lines = call.apply_result_blocks(blocks)
    assert len(lines) == 5
    assert lines[0] == "panel plan update rejected: panel_unknown panel plan has no document; " \
                       "patch needs a replace first"


async def test_result_block_without_panel(call):
    assert call.apply_result_blocks([{"type": "panel", "op": "close"}]) == [
        "panel ? update rejected: panel_invalid /panel: must be a panel id"]


async def test_live_updates_are_not_confirmed(call):
    await call.update("plan", REPLACE)
    assert call.confirmation_lines() == []


async def test_close_is_confirmed_as_closed(call):
    await call.update("plan", REPLACE)
    call.apply_result_blocks([{"type": "panel", "panel": "plan", "op": "close"}])
    assert call.confirmation_lines() == ["panel plan updated (revision 2): closed"]


# the 16-panel limit and eviction -------------------------------------------------------------

def owners(host, n_owners=5):
    calls = []
    for k in range(n_owners):
        decls = declare(*[{"id": f"p{i}", "title": f"P{i}"} for i in range(4)])
        calls.append(host.open_call(owner=f"tool{k}", declarations=decls, call_id=f"c{k}",
                                    source="model", turn_id=None))
    return calls


async def fill16(calls):
    for call in calls[:4]:
        for i in range(4):
            await call.update(f"p{i}", REPLACE)


async def test_seventeenth_panel_without_a_closed_one_is_refused(host):
    calls = owners(host)
    await fill16(calls)
    with pytest.raises(PanelError) as info:
        await calls[4].update("p0", REPLACE)
    assert info.value.code == PANEL_LIMIT
    assert len(host.panels()) == 16


async def test_seventeenth_panel_evicts_the_least_recently_updated_closed(host):
    calls = owners(host)
    await fill16(calls)
    await calls[0].update("p1", {"op": "close"})  # closed first
    await calls[1].update("p2", {"op": "close"})  # closed later
    await calls[0].update("p3", set_title("touch"))
    assert await calls[4].update("p0", REPLACE) == 1
    held = {s.panel for s in host.panels(include_closed=True)}
    assert "tool0#p1" not in held and "tool1#p2" in held and "tool4#p0" in held
    assert len(held) == 16
    assert await code_of(calls[0], "p1", set_title("gone")) == PANEL_UNKNOWN
    assert await calls[4].update("p1", REPLACE) == 1  # evicts tool1#p2
    with pytest.raises(PanelError) as info:
        await calls[4].update("p2", REPLACE)
    assert info.value.code == PANEL_LIMIT


async def test_an_evicted_panel_starts_again_at_revision_1(host):
    calls = owners(host)
    await fill16(calls)
    await calls[0].update("p0", set_title("x"))
    await calls[0].update("p0", {"op": "close"})
    assert calls[0].get("p0")[0] == 3
    await calls[4].update("p0", REPLACE)
    assert calls[0].get("p0") == (0, None)
    await calls[0].update("p1", {"op": "close"})
    assert await calls[0].update("p0", REPLACE) == 1


async def test_reopening_a_held_closed_panel_needs_no_room(host):
    calls = owners(host)
    await fill16(calls)
    await calls[0].update("p0", {"op": "close"})
    assert await calls[0].update("p0", REPLACE) == 3


# frames ----------------------------------------------------------------------------------

async def test_frames_are_coalesced_and_flushed_on_close(rec):
    host = PanelHost(rec.bus, frame_interval=0.1)
    call = host.open_call(owner=OWNER, declarations=declare({"id": "plan", "title": "P"}),
                          call_id="c", source="model", turn_id="t")
    await call.update("plan", REPLACE)
    for i in range(20):
        await call.update("plan", set_title(f"t{i}"))
    assert [s.revision for s in rec.states()] == [1]
    assert rec.receipts() == []  # the call's receipt goes out when it closes
    call.close()
    assert [r.revision for r in rec.receipts()] == [21]  # one per panel per call, as Raw
    assert [s.revision for s in rec.states()] == [1, 21]
    assert rec.states()[-1].document["title"] == "t19"
    assert rec.states()[-1].panel == f"{OWNER}#plan" and rec.states()[-1].placement == "sidebar"


async def test_a_held_frame_goes_out_after_the_interval(rec):
    host = PanelHost(rec.bus, frame_interval=0.05)
    call = host.open_call(owner=OWNER, declarations=declare({"id": "plan", "title": "P"}),
                          call_id="c", source="model", turn_id=None)
    await call.update("plan", REPLACE)
    await call.update("plan", set_title("a"))
    await call.update("plan", set_title("b"))
    await asyncio.sleep(0.12)
    assert [s.revision for s in rec.states()] == [1, 3]
    call.close()
    assert [s.revision for s in rec.states()] == [1, 3]


async def test_frames_per_panel_are_independent(rec, call):
    await call.update("plan", REPLACE)
    await call.update("other", REPLACE)
    assert [s.panel for s in rec.states()] == [f"{OWNER}#plan", f"{OWNER}#other"]


async def test_closing_publishes_a_frame_without_document(rec, call):
    await call.update("plan", REPLACE)
    await call.update("plan", {"op": "close"})
    call.close()
    assert rec.states()[-1].document is None and rec.states()[-1].revision == 2


def test_result_blocks_without_a_running_loop_still_publish(rec):
    host = PanelHost(rec.bus)
    call = host.open_call(owner=OWNER, declarations=declare({"id": "plan", "title": "P"}),
                          call_id="c", source="user_action", turn_id=None)
    call.apply_result_blocks([{"type": "panel", "panel": "plan", "op": "replace",
                               "document": checklist_doc()},
                              {"type": "panel", "panel": "plan", "op": "patch",
                               "patches": [{"op": "set", "field": "title", "value": "z"}]}])
    call.close()
    assert [s.revision for s in rec.states()] == [1, 2]
    assert rec.receipts()[0].source == "user_action"


# panels(), restore(), reminder() ------------------------------------------------------------

async def test_panels_lists_open_panels(host, call):
    await call.update("plan", REPLACE)
    await call.update("other", REPLACE)
    await call.update("other", {"op": "close"})
    assert [(s.panel, s.revision) for s in host.panels()] == [(f"{OWNER}#plan", 1)]
    assert len(host.panels(include_closed=True)) == 2


async def test_restore_continues_revisions(rec, decls):
    first = PanelHost(rec.bus)
    call = first.open_call(owner=OWNER, declarations=decls, call_id="a", source="model",
                           turn_id=None)
    await call.update("plan", REPLACE)
    await call.update("plan", set_title("before resume"))
    saved = [PanelState(panel=s.panel, owner=s.owner, revision=s.revision,
                        placement=s.placement, document=s.document) for s in first.panels()]
    broken = PanelState(panel=f"{OWNER}#other", owner=OWNER, revision=3, placement="chat",
                        document={"title": 5})
    second = PanelHost(rec.bus)
    second.register(OWNER, decls)
    assert second.restore(saved + [broken]) == 1
    call = second.open_call(owner=OWNER, declarations=decls, call_id="b", source="model",
                            turn_id=None)
    assert call.get("plan")[1]["title"] == "before resume"
    assert await call.update("plan", set_title("after")) == 3
    assert second.reminder().startswith("[Raw panel state]\nbuiltin/demo#plan \"after\" (revision 3)")


async def test_restore_from_dicts(rec, decls):
    host = PanelHost(rec.bus)
    host.restore([{"type": "panel_state", "panel": "x#plan", "owner": "x", "revision": 2,
                   "placement": "sidebar", "document": {"title": "T"}}])
    assert host.get("x#plan")[0] == 2


async def test_reminder_only_summary_panels_and_bounded(rec):
    host = PanelHost(rec.bus)
    assert host.reminder() is None
    decls = declare({"id": "plan", "title": "Plan", "context": "summary"},
                    {"id": "log", "title": "Log"},
                    {"id": "big", "title": "Big", "context": "summary"})
    call = host.open_call(owner=OWNER, declarations=decls, call_id="c", source="model",
                          turn_id=None)
    await call.update("plan", {"op": "replace", "document": checklist_doc(
        2, context_summary="Two steps left.")})
    await call.update("log", {"op": "replace", "document": {"title": "secret log"}})
    await call.update("big", {"op": "replace", "document": {"blocks": [
        {"id": "m", "kind": "markdown", "text": "é" * 5000}]}})
    text = host.reminder()
    assert text.startswith('[Raw panel state]\nbuiltin/demo#plan "Plan" (revision 1)\nTwo steps left.')
    assert "secret log" not in text
    big = text.split("builtin/demo#big")[1]
    assert len(big.encode()) < 2048 + 100 and big.endswith("…")
    assert len(text.encode()) <= 8192
    small = host.reminder(total=200)
    assert small.endswith("(1 more panel(s) not shown)")


async def test_reminder_total_bound_with_many_panels(rec):
    host = PanelHost(rec.bus)
    for k in range(4):
        decls = declare(*[{"id": f"p{i}", "title": "P", "context": "summary"} for i in range(4)])
        call = host.open_call(owner=f"t{k}", declarations=decls, call_id="c", source="model",
                              turn_id=None)
        for i in range(4):
            await call.update(f"p{i}", {"op": "replace", "document": {
                "context_summary": "x" * 2048}})
    text = host.reminder()
    assert len(text.encode()) <= 8192
    assert "more panel(s) not shown" in text


async def test_restore_keeps_the_last_state_of_each_panel(rec):
    host = PanelHost(rec.bus)
    frames = [PanelState(panel="o#a", owner="o", revision=r, placement="sidebar",
                         document={"title": f"a{r}"}) for r in (1, 2, 3)]
    frames.append(PanelState(panel="o#b", owner="o", revision=1, placement="chat",
                             document={"title": "b"}))
    frames.append(PanelState(panel="o#b", owner="o", revision=2, placement="chat",
                             document=None))
    assert host.restore(frames) == 2
    assert host.get("o#a") == (3, {"title": "a3"})
    assert host.get("o#b") == (2, None)
    assert [s.panel for s in host.panels()] == ["o#a"]


async def test_a_document_json_cannot_hold_is_panel_invalid_not_a_crash(call, rec):
    looped = {"title": "loop"}
    looped["blocks"] = [{"id": "m", "kind": "markdown", "text": "x", "self": looped}]
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    for document in (looped, {"title": "deep", "blocks": deep}):
        with pytest.raises(PanelError) as info:
            await call.update("plan", {"op": "replace", "document": document})
        assert info.value.code == PANEL_INVALID
    assert await code_of(call, "plan", REPLACE | {"document": looped}) == PANEL_INVALID
    call.close()
    assert [r.error.code for r in rec.receipts()] == [PANEL_INVALID] * 3


async def test_rejection_lines_and_receipts_are_bounded_one_line(call, rec):
    # what the model reads is added after the output cap: a tool must not grow it at will
    huge = "p" * 100_000
    key = "k\n" * 50_000
    lines = call.apply_result_blocks([
        {"type": "panel", "panel": huge, "op": "close"},
        {"type": "panel", "panel": "plan", "op": "replace", "document": {key: 1}}])
    assert len(lines) == 2
    for line in lines:
        assert len(line) <= 800 and "\n" not in line
    assert lines[0].startswith("panel ppp") and " update rejected: panel_undeclared " in lines[0]
    assert lines[1].startswith("panel plan update rejected: panel_invalid /k\\x0ak\\x0a")
    call.close()
    assert len(rec.receipts()) == 2
    for receipt in rec.receipts():
        assert len(receipt.panel) <= 200 and len(receipt.error.message) <= 600


def test_rejected_receipts_are_capped_per_call_and_the_rest_counted_once():
    from raw_tui.protocol import bus as ev
    from raw_tui.panels.declaration import parse_declarations
    from raw_tui.panels.host import PanelHost
    from raw_tui.panels.limits import MAX_REJECTED_RECEIPTS_PER_CALL

    bus, seen = ev.Bus(), []
    bus.subscribe(seen.append)
    panels = PanelHost(bus).open_call(
        owner="agent/t", declarations=parse_declarations([{"id": "p", "title": "P"}],
                                                         where=["panels"], file=None),
        call_id="c1", source="model", turn_id="t1")
    lines = panels.apply_result_blocks(
        [{"type": "panel", "panel": "p", "op": "patch", "patches": []}] * 1000)
    panels.close()
    rejected = [e for e in seen if isinstance(e, ev.PanelReceipt)]
    notices = [e for e in seen if isinstance(e, ev.Notice)]
    assert len(rejected) == MAX_REJECTED_RECEIPTS_PER_CALL
    assert len(notices) == 1 and "rest are not shown" in notices[0].message
    assert len(lines) == 5


async def test_every_receipt_is_at_most_1024_bytes_as_json(call, rec):
    """Raw: tests/panels-host.test.ts, "receipts stay bounded and settle terminates even when
    identifiers alone are large" (PANEL_LIMITS.receiptBytes)."""
    import msgspec

    from raw_tui.protocol.bus import PanelReceipt, ReceiptError
    from raw_tui.panels.receipts import bounded_receipt

    wide = {"op": "replace", "document": {"é" * 300: 1}}  # a message of 4-byte escapes
    for _ in range(3):
        await code_of(call, "plan", wide)
    await code_of(call, "😀" * 5000, REPLACE)
    await call.update("plan", REPLACE)
    call.close()
    assert len(rec.receipts()) == 5
    for receipt in rec.receipts():
        assert len(msgspec.json.encode(receipt)) <= 1024
    huge = PanelReceipt(panel="p", owner="o", title="t" * 5000, revision=1, summary="s" * 5000,
                        op="replace", source="model",
                        error=ReceiptError(code="panel_invalid", message="m" * 5000))
    out = bounded_receipt(huge)
    assert len(msgspec.json.encode(out)) <= 1024 and out.panel == "p" and out.owner == "o"

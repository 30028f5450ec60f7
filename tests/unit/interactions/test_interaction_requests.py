"""Interaction requests: every state, deadlines, idempotent answers, validation, no surface."""

from __future__ import annotations

import asyncio

import pytest

from raw_tui.protocol.bus import Bus
from raw_tui.protocol.errors import (INTERACTION_CONFLICT, INTERACTION_INVALID,
                                     INTERACTION_UNAVAILABLE, PANEL_INVALID, PANEL_NOT_OWNED,
                                     PANEL_UNDECLARED)
from raw_tui.interactions import (DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, InteractionError,
                                  Interactions)
from raw_tui.panels import PanelError

from interaction_kit import declarations, form_document
from interaction_kit import broker, ctx_interactions, rec, surface  # noqa: F401 - fixtures


def start(ctx_interactions, **kw):
    kw.setdefault("panel", "ask")
    kw.setdefault("document", form_document())
    return asyncio.ensure_future(ctx_interactions.request(**kw))


async def test_answered(broker, surface, rec, ctx_interactions):
    task = start(ctx_interactions)
    view = await surface.next_view()
    assert (view.panel, view.owner, view.title, view.placement, view.form, view.timeout_ms,
            view.turn_id) == ("builtin/ask_user#ask", "builtin/ask_user", "Pick", "chat", "f",
                              DEFAULT_TIMEOUT_MS, "t1")
    assert broker.pending() == [view]
    ack = broker.answer(view.request_id, {"color": "blue"}, "k1")
    assert (ack.status, ack.answers) == ("answered", {"color": "blue"})
    assert await task == {"status": "answered", "answers": {"color": "blue"}}
    assert rec.flow() == [("InteractionRequest", None), ("InteractionSettled", "answered")]
    assert rec.events[0].panel == "builtin/ask_user#ask" and rec.events[0].turn_id == "t1"
    assert surface.settled_calls == [(view.request_id, "answered")]
    assert broker.pending() == []


async def test_invalid_answer_stays_pending(broker, surface, ctx_interactions):
    task = start(ctx_interactions)
    view = await surface.next_view()
    with pytest.raises(InteractionError) as info:
        broker.answer(view.request_id, {"color": "green"}, "k1")
    assert (info.value.code, info.value.message) == (
        INTERACTION_INVALID, "color: must be one of the option ids red, blue")
    with pytest.raises(InteractionError) as info:
        broker.answer(view.request_id, {}, "k1")
    assert info.value.message == "color: required"
    assert not task.done() and broker.pending() == [view]
    broker.answer(view.request_id, {"color": "red"}, "k1")
    assert (await task)["answers"] == {"color": "red"}


async def test_same_key_same_ack_other_answer_conflicts(broker, surface, ctx_interactions):
    task = start(ctx_interactions)
    view = await surface.next_view()
    first = broker.answer(view.request_id, {"color": "red"}, "key-1")
    assert broker.answer(view.request_id, {"color": "red"}, "key-1") == first
    assert broker.answer(view.request_id, {"color": "blue"}, "key-1") == first
    with pytest.raises(InteractionError) as info:
        broker.answer(view.request_id, {"color": "blue"}, "key-2")
    assert (info.value.code, info.value.message) == (
        INTERACTION_CONFLICT, f"request {view.request_id} is already answered")
    with pytest.raises(InteractionError) as info:
        broker.answer(view.request_id, {"color": "red"}, None)
    assert info.value.code == INTERACTION_CONFLICT
    await task


async def test_cancelled_by_the_user(broker, surface, rec, ctx_interactions):
    task = start(ctx_interactions)
    view = await surface.next_view()
    ack = broker.cancel(view.request_id)
    assert ack.status == "cancelled" and broker.cancel(view.request_id) == ack
    assert await task == {"status": "cancelled"}
    with pytest.raises(InteractionError) as info:
        broker.answer(view.request_id, {"color": "red"}, "late")
    assert info.value.code == INTERACTION_CONFLICT
    assert rec.flow()[-1] == ("InteractionSettled", "cancelled")


async def test_cancelling_the_turn_cancels(broker, surface):
    cancelled = asyncio.Event()
    api = broker.for_call(owner="builtin/ask_user", declarations=declarations(),
                          cancelled=cancelled)
    task = start(api)
    await surface.next_view()
    cancelled.set()
    assert await task == {"status": "cancelled"}
    assert broker.pending() == []


async def test_cancelling_the_handler_task_settles_cancelled(broker, surface, rec,
                                                             ctx_interactions):
    task = start(ctx_interactions)
    await surface.next_view()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert rec.flow()[-1] == ("InteractionSettled", "cancelled")


async def test_deadline_expires(broker, surface, rec, ctx_interactions):
    task = start(ctx_interactions, timeout_ms=50)
    view = await surface.next_view()
    assert await task == {"status": "expired"}
    with pytest.raises(InteractionError) as info:
        broker.answer(view.request_id, {"color": "red"}, "k")
    assert (info.value.code, info.value.message) == (
        INTERACTION_CONFLICT, f"request {view.request_id} is already expired")
    assert rec.flow()[-1] == ("InteractionSettled", "expired")


async def test_session_close_interrupts(broker, surface, ctx_interactions):
    task = start(ctx_interactions)
    await surface.next_view()
    broker.close()
    assert await task == {"status": "interrupted"}
    with pytest.raises(InteractionError) as info:
        await ctx_interactions.request(panel="ask", document=form_document())
    assert info.value.code == INTERACTION_UNAVAILABLE


async def test_reattaching_a_surface_shows_pending_again(broker, surface, ctx_interactions):
    from interaction_kit import FakeSurface
    task = start(ctx_interactions)
    view = await surface.next_view()
    broker.detach()
    other = FakeSurface()
    broker.attach(other)
    assert other.shown == [view]
    broker.answer(view.request_id, {"color": "red"}, "k")
    assert (await task)["status"] == "answered"


async def test_no_surface_is_unavailable_at_once(rec):
    broker = Interactions(rec.bus, None)
    api = broker.for_call(owner="builtin/ask_user", declarations=declarations())
    with pytest.raises(InteractionError) as info:
        await asyncio.wait_for(api.request(panel="ask", document=form_document()), 0.5)
    assert info.value.code == INTERACTION_UNAVAILABLE
    assert rec.events == []


@pytest.mark.parametrize("timeout_ms", [0, -1, MAX_TIMEOUT_MS + 1, 1.5, True, "10"])
async def test_bad_timeouts(ctx_interactions, timeout_ms):
    with pytest.raises(InteractionError) as info:
        await ctx_interactions.request(panel="ask", document=form_document(),
                                       timeout_ms=timeout_ms)
    assert info.value.code == INTERACTION_INVALID
    assert info.value.message.startswith("timeout_ms: must be")


async def test_twenty_four_hours_is_allowed(broker, surface, ctx_interactions):
    task = start(ctx_interactions, timeout_ms=MAX_TIMEOUT_MS)
    view = await surface.next_view()
    assert view.timeout_ms == MAX_TIMEOUT_MS
    broker.cancel(view.request_id)
    await task


async def test_exactly_one_form_block(ctx_interactions):
    two = form_document(extra_blocks=[{"id": "g", "kind": "form", "fields": [
        {"id": "x", "kind": "text", "label": "X"}]}])
    for document, count in (({"blocks": []}, 0), (two, 2)):
        with pytest.raises(InteractionError) as info:
            await ctx_interactions.request(panel="ask", document=document)
        assert (info.value.code, info.value.message) == (
            INTERACTION_INVALID, f"/blocks: a request holds exactly one form block, not {count}")


async def test_other_blocks_may_go_with_the_form(broker, surface, ctx_interactions):
    task = start(ctx_interactions, document=form_document(
        extra_blocks=[{"id": "why", "kind": "markdown", "text": "Context"}]))
    view = await surface.next_view()
    broker.cancel(view.request_id)
    assert (await task)["status"] == "cancelled"


async def test_document_and_panel_rules(ctx_interactions, rec):
    with pytest.raises(PanelError) as info:
        await ctx_interactions.request(panel="ask", document={"blocks": [{"id": "f", "kind": "form",
                                                                          "fields": []}]})
    assert (info.value.code, info.value.message) == (
        PANEL_INVALID, "/blocks/0/fields: needs at least 1 fields")
    with pytest.raises(PanelError) as info:
        await ctx_interactions.request(panel="nope", document=form_document())
    assert info.value.code == PANEL_UNDECLARED
    with pytest.raises(PanelError) as info:
        await ctx_interactions.request(panel="someone#ask", document=form_document())
    assert info.value.code == PANEL_NOT_OWNED


async def test_the_panel_must_declare_submit_and_cancel(broker):
    api = broker.for_call(owner="x", declarations=declarations(actions=[
        {"id": "submit", "label": "Submit", "kind": "response", "response": "submit"}]))
    with pytest.raises(InteractionError) as info:
        await api.request(panel="ask", document=form_document())
    assert info.value.message == "panel ask must declare the response actions submit and cancel"


async def test_unknown_request(broker):
    with pytest.raises(InteractionError) as info:
        broker.answer("ir_nope", {}, "k")
    assert (info.value.code, info.value.message) == (INTERACTION_INVALID, "no request ir_nope")


def test_answering_never_touches_approval():
    """Nothing in raw_tui.interactions can grant a tool permission: it imports no approval
    or policy module, and the answer path only settles the request."""
    import ast
    from pathlib import Path

    import raw_tui.interactions as package
    for path in Path(package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
                assert not any("approval" in n or "policy" in n for n in names), path


async def test_the_shown_document_is_frozen(broker, surface, ctx_interactions):
    task = start(ctx_interactions)
    view = await surface.next_view()
    with pytest.raises(TypeError):
        view.document["title"] = "x"
    broker.cancel(view.request_id)
    await task


def test_settled_requests_are_bounded():
    from raw_tui.interactions.broker import KEEP_SETTLED

    async def many():
        broker = Interactions(Bus(), object.__new__(type("S", (), {
            "show": lambda self, v: None, "settled": lambda self, r, s: None})))
        api = broker.for_call(owner="o", declarations=declarations())
        for _ in range(KEEP_SETTLED + 10):
            task = asyncio.ensure_future(api.request(panel="ask", document=form_document()))
            await asyncio.sleep(0)
            broker.cancel(broker.pending()[0].request_id)
            await task
        return broker

    broker = asyncio.run(many())
    assert len(broker._settled) == KEEP_SETTLED


async def test_an_attached_ui_gets_the_form_as_a_panel(rec):
    from raw_tui.protocol.bus import PanelReceipt, PanelState
    from raw_tui.panels import PanelHost

    host = PanelHost(rec.bus)
    broker = Interactions(rec.bus, attached=True, panels=host)
    api = broker.for_call(owner="builtin/ask_user", declarations=declarations(),
                          cancel=asyncio.Event(), call_id="c1", turn_id="t1")
    task = asyncio.ensure_future(api.request(panel="ask", document=form_document()))
    await asyncio.sleep(0)
    kinds = [type(e).__name__ for e in rec.events]
    assert kinds == ["PanelState", "PanelReceipt", "InteractionRequest"]
    state = rec.events[0]
    assert isinstance(state, PanelState) and state.panel == "builtin/ask_user#ask"
    assert state.placement == "chat" and state.document["blocks"][0]["kind"] == "form"
    assert isinstance(rec.events[1], PanelReceipt) and rec.events[1].op == "replace"
    (view,) = broker.pending()
    broker.answer(view.request_id, {"color": "red"}, "k")
    assert await task == {"status": "answered", "answers": {"color": "red"}}


async def test_headless_writes_no_panel(rec):
    from raw_tui.panels import PanelHost

    host = PanelHost(rec.bus)
    broker = Interactions(rec.bus, attached=False, panels=host)
    api = broker.for_call(owner="builtin/ask_user", declarations=declarations())
    with pytest.raises(InteractionError) as info:
        await api.request(panel="ask", document=form_document())
    assert info.value.code == INTERACTION_UNAVAILABLE
    assert rec.events == [] and host.panels() == []


async def test_one_pending_request_per_call(broker, surface, ctx_interactions):
    task = start(ctx_interactions)
    view = await surface.next_view()
    with pytest.raises(InteractionError) as info:
        await ctx_interactions.request(panel="ask", document=form_document())
    assert info.value.code == INTERACTION_INVALID and "one form at a time" in info.value.message
    assert broker.pending() == [view]
    broker.answer(view.request_id, {"color": "red"}, "k")
    assert (await task)["status"] == "answered"
    second = start(ctx_interactions)  # after the first settled, the call may ask again
    view2 = await surface.next_view()
    broker.cancel(view2.request_id)
    assert await second == {"status": "cancelled"}

"""The interaction broker: requests from tools, answers from the UI (docs/interactions.md).

`Interactions(bus, surface)` serves a session; `for_call(...)` gives one call's
`ctx.interactions`, whose `await request(panel=, document=, timeout_ms=)` returns
`{"status": "answered", "answers": {...}}` or `{"status": "cancelled" | "expired" |
"interrupted"}`. Nothing here touches approval: an answer never grants a tool permission.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from ..protocol.bus import Bus, InteractionRequest, InteractionSettled
from ..protocol.errors import (INTERACTION_CONFLICT, INTERACTION_INVALID, INTERACTION_UNAVAILABLE,
                               PANEL_NOT_OWNED, PANEL_UNDECLARED)
from ..frozen import freeze
from ..panels.declaration import PanelDeclaration
from ..panels.document import checked_document
from ..panels.errors import PanelError
from .answers import validate_answers
from .errors import InteractionError
from .surface import Ack, InteractionSurface, InteractionView

DEFAULT_TIMEOUT_MS = 30 * 60 * 1000
MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000
KEEP_SETTLED = 256  # settled requests remembered for idempotent and late answers

ANSWERED, CANCELLED, EXPIRED, INTERRUPTED = "answered", "cancelled", "expired", "interrupted"


@dataclass
class _Request:
    view: InteractionView
    form: dict
    future: asyncio.Future
    status: str = "pending"
    ack: Ack | None = None
    key: str | None = None  # the idempotency key of the answer that settled it


class Interactions:
    """All interaction requests of a session.

    Someone can answer when a `surface` object is given (it is called to show and settle
    forms) or when `attached` is true (a UI that follows the bus: it sees the form in the
    request's panel and the `interaction_request` event, and answers with `answer`/`cancel`).
    With a panel host (`panels`), each request's document is written to its panel (a
    `replace`: revision, receipt, `panel_state`), so every surface draws it like any panel.
    """

    def __init__(self, bus: Bus, surface: InteractionSurface | None = None, *,
                 attached: bool = False, panels: Any = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.bus = bus
        self.surface = surface
        self.attached = attached
        self.panels = panels  # a raw_tui.panels.PanelHost, or None
        self._clock = clock
        self._pending: dict[str, _Request] = {}
        self._settled: OrderedDict[str, _Request] = OrderedDict()
        self._closed = False

    # the surface -----------------------------------------------------------------------

    def attach(self, surface: InteractionSurface) -> None:
        """A surface (re)attaches: it is shown every request still pending."""
        self.surface = surface
        for request in list(self._pending.values()):
            self._call(surface.show, request.view)

    def detach(self) -> None:
        """The surface went away; pending requests keep waiting for their deadline."""
        self.surface = None

    @property
    def available(self) -> bool:
        """Someone can answer: a surface object or an attached UI, and the session is open."""
        return (self.surface is not None or self.attached) and not self._closed

    def pending(self) -> list[InteractionView]:
        return [r.view for r in self._pending.values()]

    # calls -------------------------------------------------------------------------------

    def for_call(self, *, owner: str, declarations: list[PanelDeclaration],
                 cancel: asyncio.Event | None = None, call_id: str | None = None,
                 turn_id: str | None = None, source: str = "model",
                 cancelled: asyncio.Event | None = None) -> "CallInteractions":
        """`ctx.interactions` for one call; `cancel` (or `cancelled`) is the call's cancel
        event: setting it cancels a pending request."""
        return CallInteractions(self, owner=owner, declarations=declarations,
                                cancelled=cancel or cancelled or asyncio.Event(),
                                call_id=call_id, turn_id=turn_id, source=source)

    # answers from the UI -------------------------------------------------------------------

    def answer(self, request_id: str, answers: Any, idempotency_key: str | None = None) -> Ack:
        """Answer a pending request. Invalid answers raise interaction_invalid and the request
        stays pending; the same idempotency key again gives the same Ack; any other answer to
        a settled request raises interaction_conflict."""
        request = self._pending.get(request_id)
        if request is None:
            settled = self._find_settled(request_id)
            if (settled.status == ANSWERED and idempotency_key is not None
                    and settled.key == idempotency_key):
                return settled.ack
            raise InteractionError(INTERACTION_CONFLICT,
                                   f"request {request_id} is already {settled.status}")
        normalized = validate_answers(request.form, answers)
        request.key = idempotency_key
        return self._settle(request, ANSWERED, normalized)

    def cancel(self, request_id: str) -> Ack:
        """The user cancelled the form (a `cancel` response action)."""
        request = self._pending.get(request_id)
        if request is None:
            settled = self._find_settled(request_id)
            if settled.status == CANCELLED:
                return settled.ack
            raise InteractionError(INTERACTION_CONFLICT,
                                   f"request {request_id} is already {settled.status}")
        return self._settle(request, CANCELLED)

    def close(self) -> None:
        """The session ends: every pending request is interrupted."""
        self._closed = True
        for request in list(self._pending.values()):
            self._settle(request, INTERRUPTED)

    # internals -----------------------------------------------------------------------------

    def _find_settled(self, request_id: str) -> _Request:
        settled = self._settled.get(request_id)
        if settled is None:
            raise InteractionError(INTERACTION_INVALID, f"no request {request_id}")
        return settled

    def _open(self, view: InteractionView, form: dict) -> _Request:
        request = _Request(view=view, form=form,
                           future=asyncio.get_running_loop().create_future())
        self._pending[view.request_id] = request
        event = InteractionRequest(request_id=view.request_id, panel=view.panel)
        if view.turn_id is not None:
            event.turn_id = view.turn_id
        self.bus.publish(event)
        if self.surface is not None:
            self._call(self.surface.show, view)
        return request

    def _settle(self, request: _Request, status: str,
                answers: dict[str, Any] | None = None) -> Ack:
        if request.status != "pending":
            return request.ack
        request.status = status
        request.ack = Ack(request_id=request.view.request_id, status=status, answers=answers)
        self._pending.pop(request.view.request_id, None)
        self._settled[request.view.request_id] = request
        while len(self._settled) > KEEP_SETTLED:
            self._settled.popitem(last=False)
        if not request.future.done():
            request.future.set_result(request.ack)
        event = InteractionSettled(request_id=request.view.request_id, status=status)
        if answers is not None:
            event.answers = dict(answers)
        if request.view.turn_id is not None:
            event.turn_id = request.view.turn_id
        self.bus.publish(event)
        if self.surface is not None:
            self._call(self.surface.settled, request.view.request_id, status)
        return request.ack

    @staticmethod
    def _call(fn: Callable[..., Any], *args: Any) -> None:
        result = fn(*args)
        if inspect.isawaitable(result):
            asyncio.ensure_future(result)


class CallInteractions:
    """`ctx.interactions` for one call."""

    def __init__(self, broker: Interactions, *, owner: str,
                 declarations: list[PanelDeclaration], cancelled: asyncio.Event,
                 call_id: str | None, turn_id: str | None, source: str = "model") -> None:
        self.broker = broker
        self.owner = owner
        self.declarations = list(declarations)
        self.by_id = {d.id: d for d in declarations}
        self.cancelled = cancelled
        self.call_id = call_id
        self.turn_id = turn_id
        self.source = source
        self._waiting = False  # one pending request per call

    async def request(self, *, panel: str, document: dict[str, Any],
                      timeout_ms: int | None = None) -> dict[str, Any]:
        """Show a form and wait for its answer, its cancellation or its deadline."""
        timeout = _timeout(timeout_ms)
        declaration = self._declaration(panel)
        checked = checked_document(document)
        form = _the_form(checked)
        if not self.broker.available:
            raise InteractionError(INTERACTION_UNAVAILABLE,
                                   "no one can answer: this session has no interactive surface")
        if self._waiting:
            raise InteractionError(INTERACTION_INVALID,
                                   "this call already waits for an answer: ask one form at a time")
        self._waiting = True
        try:
            return await self._ask(declaration, checked, form, timeout)
        finally:
            self._waiting = False

    async def _ask(self, declaration: PanelDeclaration, checked: dict, form: dict,
                   timeout: int) -> dict[str, Any]:
        shown = await self._show_in_panel(declaration, checked)
        view = InteractionView(
            request_id=f"ir_{uuid.uuid4().hex[:16]}", panel=f"{self.owner}#{declaration.id}",
            owner=self.owner, title=checked.get("title") or declaration.title,
            placement=declaration.placement, document=freeze(checked), form=form["id"],
            timeout_ms=timeout, deadline=self.broker._clock() + timeout / 1000,
            turn_id=self.turn_id)
        request = self.broker._open(view, form)
        try:
            ack = await self._wait(request, timeout / 1000)
        finally:
            if shown is not None:
                shown.close()
        if ack.status == ANSWERED:
            return {"status": ANSWERED, "answers": dict(ack.answers or {})}
        return {"status": ack.status}

    async def _wait(self, request: _Request, seconds: float) -> Ack:
        cancel_wait = asyncio.ensure_future(self.cancelled.wait())
        try:
            done, _ = await asyncio.wait({request.future, cancel_wait}, timeout=seconds,
                                         return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            self.broker._settle(request, CANCELLED)
            raise
        finally:
            cancel_wait.cancel()
        if request.future.done():
            return request.future.result()
        status = CANCELLED if cancel_wait in done or self.cancelled.is_set() else EXPIRED
        return self.broker._settle(request, status)

    async def _show_in_panel(self, declaration: PanelDeclaration, document: dict) -> Any:
        """Write the form to its panel through the host (when the broker has one)."""
        if self.broker.panels is None:
            return None
        call = self.broker.panels.open_call(
            owner=self.owner, declarations=self.declarations,
            call_id=f"{self.call_id or 'interaction'}:form", source=self.source,
            turn_id=self.turn_id)
        try:
            await call.update(declaration.id, {"op": "replace", "document": document})
        except PanelError:
            call.close()
            raise
        call.publish_receipts()  # now: the call stays open for the whole wait
        return call

    def _declaration(self, panel: Any) -> PanelDeclaration:
        if not isinstance(panel, str):
            raise InteractionError(INTERACTION_INVALID, "panel: must be a panel id")
        owner, sep, panel_id = panel.rpartition("#")
        if sep and owner != self.owner:
            raise PanelError(PANEL_NOT_OWNED, f"panel {panel} belongs to {owner}")
        declaration = self.by_id.get(panel_id)
        if declaration is None:
            raise PanelError(PANEL_UNDECLARED,
                             f"{self.owner} does not declare panel {panel_id!r}")
        if not declaration.responds():
            raise InteractionError(INTERACTION_INVALID,
                                   f"panel {panel_id} must declare the response actions "
                                   f"submit and cancel")
        return declaration


def _timeout(timeout_ms: Any) -> int:
    if timeout_ms is None:
        return DEFAULT_TIMEOUT_MS
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int):
        raise InteractionError(INTERACTION_INVALID, "timeout_ms: must be an integer")
    if timeout_ms <= 0 or timeout_ms > MAX_TIMEOUT_MS:
        raise InteractionError(INTERACTION_INVALID,
                               f"timeout_ms: must be more than 0 and at most {MAX_TIMEOUT_MS} "
                               f"(24 hours)")
    return timeout_ms


def _the_form(document: dict) -> dict:
    forms = [b for b in document.get("blocks") or [] if b.get("kind") == "form"]
    if len(forms) != 1:
        raise InteractionError(INTERACTION_INVALID,
                               f"/blocks: a request holds exactly one form block, not "
                               f"{len(forms)}")
    return forms[0]

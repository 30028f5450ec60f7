"""What a UI implements to show forms, and what it is given (docs/interactions.md).

The engine never calls the UI beyond this: `show(view)` when a request starts (and again for
every pending request when a surface attaches, e.g. after a browser reconnects), and
`settled(request_id, status)` when it ends. The UI answers through the broker:
`Interactions.answer(request_id, answers, idempotency_key)` or `Interactions.cancel(...)`.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec


class InteractionView(msgspec.Struct, kw_only=True):
    """One pending request as a surface shows it."""

    request_id: str
    panel: str  # full id OWNER#ID (the form is also drawn there when the broker has a host)
    owner: str
    title: str
    placement: str  # sidebar | chat
    document: Any  # the validated, frozen document (exactly one form block)
    form: str  # the id of the form block
    timeout_ms: int
    deadline: float  # wall-clock seconds (time.time()) when it expires
    turn_id: str | None = None


class Ack(msgspec.Struct, frozen=True, kw_only=True):
    """What `answer` / `cancel` return: the request's final state."""

    request_id: str
    status: str  # answered | cancelled | expired | interrupted
    answers: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        """An Ack is an accepted command (refusals raise InteractionError instead)."""
        return True


class InteractionSurface(Protocol):
    def show(self, request: InteractionView) -> Any:
        """Show the form; must not block (a coroutine returned is run as a task)."""
        ...

    def settled(self, request_id: str, status: str) -> Any:
        """The request ended (answered, cancelled, expired, interrupted): remove the form."""
        ...

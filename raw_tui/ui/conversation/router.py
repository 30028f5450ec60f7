"""One table from engine event type to the handlers that draw it.

Each feature of the conversation (this package) says which event types it handles
(`routes()`); the router gathers them, in the order the features are listed, and hands every
event to its handlers as its own type, with each field the event left out (`msgspec.UNSET`)
read as None: the one place the UI unwraps UNSET. A handler that fails is one bad event, not
a broken session: it becomes a notice in the chat, and the next handler still runs. An event
type no feature handles is written to the debug log, never silently lost."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Iterable

import msgspec
from textual import log

Handler = Callable[[Any, bool], Awaitable[None]]


def live_only(handler: Callable) -> Callable:
    """Mark a handler for live events only: the saved history of a resumed session skips it
    (its deltas, a finished call's progress, the turn state of back then)."""
    handler.live_only = True
    return handler


def settled(event: Any) -> Any:
    """`event` with its fields left out (`msgspec.UNSET`) as None (a copy: the event itself
    may be shared with the session in process)."""
    fields = getattr(type(event), "__struct_fields__", ())
    unset = [name for name in fields if getattr(event, name) is msgspec.UNSET]
    return msgspec.structs.replace(event, **dict.fromkeys(unset)) if unset else event


class Router:
    def __init__(self, features: Iterable[Any],
                 failed: Callable[[str, Exception], Awaitable[None]],
                 undrawn: Iterable[type] = ()) -> None:
        """`failed(name, error)` draws a handler's failure (a notice); `undrawn`: event
        types the UI knows and draws nothing of."""
        self.table: dict[type, list[Handler]] = {kind: [] for kind in undrawn}
        for feature in features:
            for kind, handlers in feature.routes().items():
                self.table.setdefault(kind, []).extend(
                    handlers if isinstance(handlers, (list, tuple)) else [handlers])
        self.failed = failed

    async def route(self, event: Any, live: bool) -> None:
        handlers = self.table.get(type(event))
        if handlers is None:
            log.warning(f"no widget draws {type(event).__name__}: {event!r}")
            return
        event = settled(event)
        for handler in handlers:
            if live or not getattr(handler, "live_only", False):
                try:
                    await handler(event, live)
                except Exception as err:
                    await self.failed(type(event).__name__, err)

"""Awaiting something that a cancel signal (an `asyncio.Event`) may cut short, and the
process signals that ask for a stop."""

from __future__ import annotations

import asyncio
import signal
from contextlib import contextmanager
from typing import Any, Awaitable, Callable, Iterator


class Cancelled(Exception):
    """The cancel signal was set before the awaited work finished (the work was cancelled)."""


async def unless_cancelled(awaitable: Awaitable[Any], cancel: asyncio.Event) -> Any:
    """The result of `awaitable`, unless `cancel` is set first: then the work is cancelled,
    awaited (so its clean-up runs: processes killed, streams closed) and `Cancelled` raised.
    If the caller itself is cancelled, the work is cancelled too.

    The work runs in the caller's task (a task of its own cost two more event-loop turns per
    call, a fifth of an MCP call's time through the gate): the cancel signal cancels the
    caller's task, and that cancellation, once the work has unwound, becomes `Cancelled`."""
    if cancel.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        raise Cancelled
    current = asyncio.current_task()
    assert current is not None
    signalled = False

    def stop(_: Any) -> None:
        nonlocal signalled
        if not waiter.cancelled():
            signalled = True
            current.cancel()

    waiter = asyncio.ensure_future(cancel.wait())
    waiter.add_done_callback(stop)
    try:
        result = await awaitable
    except asyncio.CancelledError:
        if not signalled:
            raise  # the caller was cancelled: so was the work
        result = None
    finally:
        waiter.remove_done_callback(stop)
        waiter.cancel()
    if signalled:
        # ours, not the caller's: take it back (unless someone else cancelled it too)
        if current.uncancel() > 0:
            raise asyncio.CancelledError
        raise Cancelled
    return result


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # SIGHUP: an SSH drop


@contextmanager
def on_stop_signals(callback: Callable[[], None]) -> Iterator[None]:
    """While inside, SIGINT, SIGTERM and SIGHUP call `callback` on the running loop (which
    should cancel the work, so that it ends cleanly) instead of killing the process."""
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, callback)
    try:
        yield
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)


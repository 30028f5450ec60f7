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
    If the caller itself is cancelled, the work is cancelled too."""
    task = asyncio.ensure_future(awaitable)
    waiter = asyncio.ensure_future(cancel.wait())
    first = asyncio.get_running_loop().create_future()

    def wake(_: Any) -> None:  # one future woken by either (asyncio.wait costs twice as much)
        if not first.done():
            first.set_result(None)

    task.add_done_callback(wake)
    waiter.add_done_callback(wake)
    try:
        await first
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        waiter.cancel()
        task.remove_done_callback(wake)
    if not task.done():
        task.cancel()
        try:
            await task
        except BaseException:
            pass
        raise Cancelled
    return task.result()


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


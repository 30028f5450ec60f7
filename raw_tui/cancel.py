"""Awaiting something that a cancel signal (an `asyncio.Event`) may cut short."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable


class Cancelled(Exception):
    """The cancel signal was set before the awaited work finished (the work was cancelled)."""


async def unless_cancelled(awaitable: Awaitable[Any], cancel: asyncio.Event) -> Any:
    """The result of `awaitable`, unless `cancel` is set first: then the work is cancelled,
    awaited (so its clean-up runs: processes killed, streams closed) and `Cancelled` raised.
    If the caller itself is cancelled, the work is cancelled too."""
    task = asyncio.ensure_future(awaitable)
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        waiter.cancel()
    if task not in done:
        task.cancel()
        try:
            await task
        except BaseException:
            pass
        raise Cancelled
    return task.result()

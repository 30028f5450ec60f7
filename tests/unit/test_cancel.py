"""`unless_cancelled`: the work runs in the caller's task (no task of its own: two fewer
event-loop turns per gated call), a cancel signal cancels it (its clean-up runs) and raises
`Cancelled`, the caller's own cancellation stays a cancellation."""

from __future__ import annotations

import asyncio

import pytest

from raw_tui.cancel import Cancelled, unless_cancelled


async def test_the_work_runs_in_the_callers_task_and_returns_its_result():
    async def work():
        await asyncio.sleep(0)
        return asyncio.current_task()

    caller = asyncio.current_task()
    assert await unless_cancelled(work(), asyncio.Event()) is caller


async def test_a_cancel_signal_cancels_the_work_and_leaves_the_caller_usable():
    cancel = asyncio.Event()
    cleaned = []

    async def work():
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append(True)

    asyncio.get_running_loop().call_later(0.01, cancel.set)
    with pytest.raises(Cancelled):
        await unless_cancelled(work(), cancel)
    assert cleaned == [True]
    assert asyncio.current_task().cancelling() == 0
    await asyncio.sleep(0.01)  # the caller was not left cancelled


async def test_a_work_that_swallows_the_cancel_still_ends_as_cancelled():
    cancel = asyncio.Event()

    async def stubborn():
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return "ignored the cancel"

    asyncio.get_running_loop().call_later(0.01, cancel.set)
    with pytest.raises(Cancelled):
        await unless_cancelled(stubborn(), cancel)
    await asyncio.sleep(0)


async def test_a_signal_set_before_does_not_run_the_work():
    cancel = asyncio.Event()
    cancel.set()
    ran = []

    async def work():
        ran.append(True)

    with pytest.raises(Cancelled):
        await unless_cancelled(work(), cancel)
    assert ran == []


async def test_the_callers_own_cancellation_cancels_the_work_and_stays_a_cancellation():
    cleaned = []
    started = asyncio.Event()

    async def work():
        started.set()
        try:
            await asyncio.sleep(10)
        finally:
            cleaned.append(True)

    task = asyncio.create_task(unless_cancelled(work(), asyncio.Event()))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == [True]


async def test_both_at_once_is_the_callers_cancellation():
    cancel = asyncio.Event()
    started = asyncio.Event()

    async def work():
        started.set()
        await asyncio.sleep(10)

    task = asyncio.create_task(unless_cancelled(work(), cancel))
    await started.wait()
    cancel.set()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

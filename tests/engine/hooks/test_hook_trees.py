"""A hook's process tree ends on timeout and cancel, and when the cleanup window after the
hook's exit expires: every descendant, also those that double-forked into a new session."""

from __future__ import annotations

import asyncio
import time

import pytest

from raw_tui.hooks import run_hook
from raw_tui.hooks.runner import CLEANUP_WINDOW_S
from tests.proctree_kit import kill_marked, marker, survivors, with_marker

from hook_kit import load, write_hook

PAYLOAD = b'{"protocol_version":2,"event":"PreToolUse","cwd":"/"}'


@pytest.fixture
def mark():
    value = marker()
    yield value
    kill_marked(value)


def spawner(mark: str, then: str) -> str:
    """A hook that leaves a double-forked setsid child (output elsewhere) and an ordinary
    background child, then does `then`."""
    return f"""
subprocess.run(['bash', '-c', '(setsid sleep {mark} >/dev/null 2>&1 &); (sleep {mark} >/dev/null 2>&1 &)'])
{then}
"""


async def run(tmp_path, script, *, cancel=None, **fields):
    write_hook(tmp_path, "h", script, **fields)
    hookset = load(tmp_path, ["agent/h"])
    try:
        return await run_hook(hookset.get("agent/h"), PAYLOAD, gate=True, cwd=str(tmp_path),
                              cancel=cancel)
    finally:
        hookset.close()


async def test_timeout_ends_double_forked_children(tmp_path, mark):
    result = await run(tmp_path, spawner(mark, "time.sleep(60)"), timeout_ms=700)
    assert result.code == "timeout"
    assert survivors(mark) == []


async def test_cancel_ends_double_forked_children(tmp_path, mark):
    cancel = asyncio.Event()
    task = asyncio.ensure_future(run(tmp_path, spawner(mark, "time.sleep(60)"), cancel=cancel,
                                     timeout_ms=20000))
    for _ in range(250):
        if len(with_marker(mark)) == 2:
            break
        await asyncio.sleep(0.02)
    cancel.set()
    result = await asyncio.wait_for(task, 5)
    assert result.code == "aborted"
    assert survivors(mark) == []


async def test_background_children_end_when_the_cleanup_window_expires(tmp_path, mark):
    started = time.monotonic()
    result = await run(tmp_path, spawner(mark, ""), timeout_ms=5000)
    elapsed = time.monotonic() - started
    assert result.outcome == "continued", result
    assert survivors(mark, settle_s=0) == []
    assert elapsed >= CLEANUP_WINDOW_S


async def test_children_that_end_within_the_window_cost_no_wait(tmp_path):
    started = time.monotonic()
    result = await run(tmp_path, "subprocess.Popen(['sleep', '0.05'], stdout=subprocess.DEVNULL)",
                       timeout_ms=5000)
    assert result.outcome == "continued"
    assert time.monotonic() - started < 3

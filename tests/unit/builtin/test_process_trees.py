"""bash ends every descendant of a command on timeout and cancel, even those that
double-forked into a new session (they re-parent to raw-tui, a child subreaper), and reaps
them; a daemon left by a command that exited normally, with its output elsewhere, is kept."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from builtin_kit import acall, bash, make_ctx  # noqa: F401 (fixtures)

from raw_tui.protocol.errors import CANCELLED, TOOL_ERROR
from raw_tui.frozen import freeze
from raw_tui.tools import procgroup, proctree
from tests.config_kit import REPO
from tests.proctree_kit import kill_marked, marker, survivors, with_marker, zombie_children


@pytest.fixture
def mark():
    value = marker()
    yield value
    kill_marked(value)


def text(result) -> str:
    return result["content"][0]["text"]


async def started(mark: str, count: int = 1, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(with_marker(mark)) < count:
        assert loop.time() < deadline, "the background processes never started"
        await asyncio.sleep(0.02)


def double_fork(mark: str, redirect: str = "") -> str:
    """A child that leaves the group and the session, its parent gone: no ancestry left."""
    return f"(setsid sleep {mark} {redirect} &); (sleep {mark} {redirect} &)"


async def test_timeout_ends_double_forked_setsid_children(bash, tmp_path, mark):
    result = await acall(bash, {"commands": [
        {"command": f"{double_fork(mark)}; sleep {mark}", "timeout_ms": 500}]}, tmp_path)
    assert result["code"] == TOOL_ERROR and text(result).endswith("timed out after 500 ms")
    assert survivors(mark) == []


async def test_cancel_ends_double_forked_setsid_children(bash, tmp_path, mark):
    ctx = make_ctx(tmp_path)
    args = freeze({"commands": [{"command": f"{double_fork(mark, '>/dev/null 2>&1')}; "
                                            f"sleep {mark}"}]})
    task = asyncio.ensure_future(bash.module().handler(args, ctx))
    await started(mark, 3)
    ctx.cancelled.set()
    result = await asyncio.wait_for(task, 5)
    assert result["code"] == CANCELLED
    assert survivors(mark) == []


async def test_cancelling_the_task_ends_double_forked_children(bash, tmp_path, mark):
    args = freeze({"commands": [{"command": f"{double_fork(mark)}; sleep {mark}"}]})
    task = asyncio.ensure_future(bash.module().handler(args, make_ctx(tmp_path)))
    await started(mark, 3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert survivors(mark) == []


async def test_setsid_leftover_holding_the_output_is_ended_after_exit(bash, tmp_path, mark):
    result = await acall(bash, {"commands": [{"command": f"(setsid sleep {mark} &)"}]},
                         tmp_path)
    assert text(result).endswith("exit 0 (background processes still holding the output "
                                 "were ended)")
    assert survivors(mark) == []


async def test_a_daemon_left_after_a_normal_exit_is_kept(bash, tmp_path, mark):
    result = await acall(bash, {"commands": [
        {"command": f"(setsid nohup sleep {mark} >/dev/null 2>&1 &)"}]}, tmp_path)
    assert text(result).endswith("exit 0")
    assert len(survivors(mark, settle_s=0)) == 1


async def test_ended_orphans_are_reaped(bash, tmp_path, mark):
    ctx = make_ctx(tmp_path)
    args = freeze({"commands": [{"command": f"{double_fork(mark)}; sleep {mark}"}]})
    task = asyncio.ensure_future(bash.module().handler(args, ctx))
    await started(mark, 3)
    pids = with_marker(mark)
    ctx.cancelled.set()
    await asyncio.wait_for(task, 5)
    assert survivors(mark) == []
    await asyncio.sleep(0.1)
    assert [pid for pid in zombie_children() if pid in pids] == []


async def test_raw_tui_is_a_child_subreaper(tmp_path):
    await procgroup.run(["true"], cwd=str(tmp_path))
    assert proctree.is_subreaper()


async def test_a_cancel_while_the_pipes_connect_leaves_nothing(tmp_path, mark, monkeypatch):
    # asyncio forks first and connects the pipes after; a cancel then kills only its pid
    real = asyncio.create_subprocess_exec

    async def slow_connect(*args, **kwargs):
        proc = await real(*args, **kwargs)
        await asyncio.sleep(5)  # the cancel lands here, the command already running
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", slow_connect)
    task = asyncio.ensure_future(procgroup.run(
        ["bash", "-c", f"sleep {mark} & (setsid sleep {mark} &); wait"], cwd=str(tmp_path)))
    await started(mark, 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert survivors(mark) == []


def test_open_trees_end_when_the_interpreter_exits(tmp_path, mark):
    # raw-tui ending by an unexpected path (no cancel ran): atexit ends what is still open
    code = f"""
import asyncio, sys, time
from raw_tui.tools import procgroup
async def main():
    await procgroup.spawn(["bash", "-c", "(setsid sleep {mark} >/dev/null 2>&1 &); sleep {mark}"],
                          cwd=None, env=None, stdin=None, merge_stderr=True)
    time.sleep(0.5)
asyncio.new_event_loop().run_until_complete(main())
sys.exit(3)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, timeout=60)
    assert done.returncode == 3
    assert survivors(mark) == []


async def test_a_command_is_seen_to_exit_when_it_exits_not_at_the_next_poll():
    """The wait for a command's exit is woken by its pidfd: with a poll interval of 60 s, a
    command that runs 50 ms is still reported at once (a poll would have taken 60 s)."""
    proc = await procgroup.spawn(["sleep", "0.05"], cwd=None, env=None, stdin=None,
                                 merge_stderr=True)
    try:
        exit_signal = procgroup.ExitSignal(proc.pid)
        try:
            await asyncio.wait_for(exit_signal.wait(60), 10)
        finally:
            exit_signal.close()
        assert exit_signal.exited.is_set() and exit_signal.fd is None
        await asyncio.wait_for(proc.wait(), 10)
    finally:
        procgroup.keep_leftovers(proc)


async def test_a_run_reports_a_quick_exit_without_waiting_out_the_poll(monkeypatch):
    monkeypatch.setattr(procgroup, "POLL_S", 60.0)
    res = await asyncio.wait_for(procgroup.run(["sh", "-c", "echo quick"], timeout_s=30), 10)
    assert (res.status, res.returncode, bytes(res.stdout.head)) == ("exited", 0, b"quick\n")

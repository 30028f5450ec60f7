"""bash and the process-group runner on real processes: output, exit codes, timeouts,
cancellation, descendants that must not survive, output caps."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from builtin_kit import acall, bash, make_ctx, validation_error  # noqa: F401 (fixtures)

from raw_tui.protocol.errors import CANCELLED, TOOL_ERROR
from raw_tui.frozen import freeze
from raw_tui.tools import procgroup
from tests.config_kit import alive


def pids_in(path) -> list[int]:
    return [int(x) for x in path.read_text().split()]


async def wait_for_file(path, timeout=5.0) -> None:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        await asyncio.sleep(0.02)


def text(result) -> str:
    return result["content"][0]["text"]


@pytest.fixture
def reap():
    """Pids to SIGKILL at the end of a test whatever happens."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


async def test_output_exit_code_cwd_and_merged_stderr(bash, tmp_path):
    result = await acall(bash, {"commands": [
        {"command": "pwd; echo out; echo err >&2"},
        {"command": "exit 0"},
    ]}, tmp_path)
    assert result == {"isError": False, "content": [{"type": "text", "text":
                      f"$ pwd; echo out; echo err >&2\n{tmp_path}\nout\nerr\nexit 0\n\n"
                      "$ exit 0\nexit 0"}]}


async def test_stops_at_the_first_failure(bash, tmp_path):
    result = await acall(bash, {"commands": [
        {"command": "echo first"},
        {"command": "echo second; exit 3"},
        {"command": "touch never"},
        {"command": "touch never2"},
    ]}, tmp_path)
    assert result["isError"] is True and result["code"] == TOOL_ERROR
    assert text(result).endswith("$ echo second; exit 3\nsecond\nexit 3\n\n"
                                 "(stopped: 2 later commands not run)")
    assert not (tmp_path / "never").exists()


async def test_stdin_is_dev_null(bash, tmp_path):
    result = await acall(bash, {"commands": [{"command": "cat; echo done"}]}, tmp_path)
    assert text(result) == "$ cat; echo done\ndone\nexit 0"


async def test_timeout_ends_the_group_and_its_descendants(bash, tmp_path, reap):
    # A background child in the group, an orphaned grandchild (double fork) in the group,
    # and a child that left the group with setsid: none may survive the timeout.
    script = ("sleep 300 & echo $! >> pids; "
              "(sleep 301 & echo $! >> pids); "
              "setsid sleep 302 & echo $! >> pids; "
              "wait")
    started = time.monotonic()
    result = await acall(bash, {"commands": [{"command": script, "timeout_ms": 400}]}, tmp_path)
    elapsed = time.monotonic() - started
    pids = pids_in(tmp_path / "pids")
    reap.extend(pids)
    assert len(pids) == 3
    assert result["isError"] is True and result["code"] == TOOL_ERROR
    assert text(result).endswith("timed out after 400 ms")
    assert elapsed < 3
    await asyncio.sleep(0.1)
    assert [pid for pid in pids if alive(pid)] == []


async def test_cancel_ends_the_tree(bash, tmp_path, reap):
    ctx = make_ctx(tmp_path)
    args = freeze({"commands": [{"command": "sleep 300 & echo $! > pids; wait"},
                                {"command": "touch never"}]})
    task = asyncio.ensure_future(bash.module().handler(args, ctx))
    await wait_for_file(tmp_path / "pids")
    pids = pids_in(tmp_path / "pids")
    reap.extend(pids)
    ctx.cancelled.set()
    result = await asyncio.wait_for(task, 5)
    assert result["isError"] is True and result["code"] == CANCELLED
    assert "cancelled" in text(result) and "(stopped: 1 later command not run)" in text(result)
    await asyncio.sleep(0.1)
    assert not alive(pids[0])
    assert not (tmp_path / "never").exists()


async def test_an_already_cancelled_call_runs_nothing(bash, tmp_path):
    ctx = make_ctx(tmp_path)
    ctx.cancelled.set()
    result = await bash.module().handler(freeze({"commands": [{"command": "touch x"}]}), ctx)
    assert result["code"] == CANCELLED and not (tmp_path / "x").exists()


async def test_cancelling_the_task_ends_the_tree(bash, tmp_path, reap):
    # Dispatch cancels the handler's task when the turn is cancelled.
    args = freeze({"commands": [{"command": "sleep 300 & echo $! > pids; wait"}]})
    task = asyncio.ensure_future(bash.module().handler(args, make_ctx(tmp_path)))
    await wait_for_file(tmp_path / "pids")
    pids = pids_in(tmp_path / "pids")
    reap.extend(pids)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    await asyncio.sleep(0.1)
    assert not alive(pids[0])


async def test_sigkill_follows_when_sigterm_is_ignored(tmp_path):
    started = time.monotonic()
    res = await procgroup.run(["bash", "-c", "trap '' TERM; while :; do sleep 0.05; done"],
                              cwd=str(tmp_path), timeout_s=0.2)
    assert res.status == "timeout"
    assert res.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 2


async def test_leftovers_holding_the_output_are_ended_after_exit(bash, tmp_path, reap):
    started = time.monotonic()
    result = await acall(bash, {"commands": [{"command": "sleep 300 & echo $! > pids"}]},
                         tmp_path)
    pids = pids_in(tmp_path / "pids")
    reap.extend(pids)
    assert time.monotonic() - started < 3
    assert result["isError"] is False
    assert text(result).endswith("exit 0 (background processes still holding the output "
                                 "were ended)")
    await asyncio.sleep(0.1)
    assert not alive(pids[0])


async def test_a_detached_background_job_is_left_alone(bash, tmp_path, reap):
    result = await acall(bash, {"commands": [
        {"command": "sleep 300 >/dev/null 2>&1 & echo $! > pids"}]}, tmp_path)
    pids = pids_in(tmp_path / "pids")
    reap.extend(pids)
    assert text(result).endswith("exit 0")
    assert alive(pids[0])


async def test_output_is_capped_head_and_tail(bash, tmp_path):
    result = await acall(bash, {"commands": [
        {"command": "echo BEGIN; head -c 200000 /dev/zero | tr '\\0' x; echo; echo END"}]},
        tmp_path)
    out = text(result)
    assert out.startswith("$ echo BEGIN") and "\nBEGIN\n" in out
    assert out.endswith("x\nEND\nexit 0")
    assert "bytes cut ...]" in out
    assert len(out.encode()) <= 8192


async def test_capture_keeps_head_and_tail_and_counts_the_cut():
    script = "printf 'A%.0s' $(seq 100); printf 'B%.0s' $(seq 100)"
    res = await procgroup.run(["bash", "-c", script], cap=40, keep_tail=True)
    assert bytes(res.stdout.head) == b"A" * 20 and bytes(res.stdout.tail) == b"B" * 20
    assert res.stdout.cut == 160 and res.stdout.overflowed


async def test_runner_with_stdin_and_separate_stderr(tmp_path):
    # The shape the hook runner uses: JSON on stdin, stdout and stderr apart.
    script = 'read line; echo "got $line"; echo oops >&2; exit 2'
    res = await procgroup.run(["bash", "-c", script], cwd=str(tmp_path), stdin=b'{"a": 1}\n',
                              merge_stderr=False, timeout_s=5)
    assert res.status == "exited" and res.returncode == 2
    assert bytes(res.stdout.head) == b'got {"a": 1}\n'
    assert bytes(res.stderr.head) == b"oops\n"


async def test_runner_ends_a_flood_past_limit_total():
    # The hook runner's "output_too_large": stop as soon as the output passes the limit.
    started = time.monotonic()
    res = await procgroup.run(["bash", "-c", "yes; sleep 300"], limit_total=100_000,
                              cap=1000, timeout_s=30)
    assert res.status == "overflow" and res.stdout.total > 100_000
    assert len(res.stdout.head) == 1000
    assert time.monotonic() - started < 3


async def test_spawn_failure_raises_oserror():
    with pytest.raises(OSError):
        await procgroup.run(["/nonexistent/program"])


async def test_bad_cwd_is_a_tool_error(bash, tmp_path):
    result = await acall(bash, {"commands": [{"command": "true"}]}, tmp_path / "missing")
    assert result["isError"] and result["code"] == TOOL_ERROR
    assert "cannot start bash" in text(result)


@pytest.mark.parametrize("args, words", [
    ({}, "commands"),
    ({"commands": []}, "give 1 to 16"),
    ({"commands": [{"command": "true"}] * 17}, "give 1 to 16"),
    ({"commands": [{"command": "  "}]}, "command is empty"),
    ({"commands": [{"command": "true", "timeout_ms": 0}]}, "timeout_ms must be 1 to 600000"),
    ({"commands": [{"command": "true", "timeout_ms": 600001}]}, "timeout_ms"),
    ({"commands": [{"command": "true", "cwd": "/"}]}, "unknown field cwd"),
    ({"commands": ["true"]}, "commands"),
])
def test_invalid_arguments(bash, args, words):
    message = validation_error(bash, args)
    assert message is not None and words in message, message

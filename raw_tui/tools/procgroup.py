"""Run one command in its own process group; end it with every descendant on timeout or cancel.

Used by `builtin/bash` and the hook runner (DECISIONS.md §3 and §4):

- the child starts a new session (`start_new_session=True`), so it leads its own process group;
- stdin is `/dev/null` unless bytes are given; stdout (and stderr, merged or apart) are read
  as they come and only `cap` bytes are kept (the head, or the head and the tail);
- on timeout, when `cancel` is set, or (with `limit_total`) when the output passes that many
  bytes: SIGTERM to the group and to every descendant found in `/proc` (which also reaches
  those that left the group with `setsid`), SIGKILL 500 ms later;
- when the command exits but processes it left in its group still hold the output pipes open,
  the group gets SIGTERM after `linger_s` seconds, SIGKILL 500 ms later (a background job
  whose output was redirected elsewhere is left alone: it was detached on purpose; one that
  left the group with `setsid` cannot be traced once its parent has exited);
- if the awaiting task itself is cancelled, the tree is ended the same way before the
  cancellation goes on (SIGKILL at once if that is interrupted again).

`kill_tree(proc)` is the kill step on its own, for a caller that drives its own process.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Literal

KILL_GRACE_S = 0.5
POLL_S = 0.02
DEFAULT_CAP = 64 * 1024
READ_CHUNK = 64 * 1024

Status = Literal["exited", "timeout", "cancelled", "overflow"]


@dataclass
class Capture:
    """Bytes read from one pipe: the kept head (and tail), and how many bytes were cut."""

    cap: int
    keep_tail: bool = False
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        head_cap = self.cap // 2 if self.keep_tail else self.cap
        room = head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.keep_tail:
            tail_cap = self.cap - head_cap
            self.tail += data
            if len(self.tail) > tail_cap:
                del self.tail[: len(self.tail) - tail_cap]

    @property
    def cut(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    @property
    def overflowed(self) -> bool:
        return self.total > self.cap


@dataclass
class ProcResult:
    status: Status
    returncode: int | None  # the exit code; negative for a signal; None when never reaped
    stdout: Capture
    stderr: Capture | None  # None when stderr was merged into stdout
    duration_ms: int
    ended_leftovers: bool = False  # processes left holding the output were ended

    @property
    def output_total(self) -> int:
        return self.stdout.total + (self.stderr.total if self.stderr else 0)


# ---------------------------------------------------------------------------- the kill step

@dataclass(frozen=True)
class ProcStat:
    pid: int
    state: bytes  # b"R", b"S", ..., b"Z" for a zombie
    ppid: int
    pgrp: int

    @property
    def live(self) -> bool:
        return self.state not in (b"Z", b"X")


def proc_stat(pid: int) -> ProcStat | None:
    """A process's state, parent and group from /proc/PID/stat; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    fields = stat[stat.rfind(b")") + 2:].split()
    try:
        return ProcStat(pid, fields[0], int(fields[1]), int(fields[2]))
    except (IndexError, ValueError):
        return None


def all_procs() -> list[ProcStat]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    found = (proc_stat(int(n)) for n in names if n.isdigit())
    return [p for p in found if p is not None]


def descendants(root: int) -> list[int]:
    """Every process below `root`, found through the parent fields of /proc."""
    children: dict[int, list[int]] = {}
    for p in all_procs():
        children.setdefault(p.ppid, []).append(p.pid)
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def signal_tree(pgid: int, pids: list[int], sig: int) -> None:
    """Send `sig` to the process group `pgid` and to each of `pids` (gone ones are skipped)."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def tree_alive(pgid: int, pids: list[int]) -> bool:
    """True while a member of group `pgid`, or one of `pids`, still runs (zombies do not:
    an orphan's zombie waits for whoever adopted it to reap it)."""
    wanted = set(pids)
    return any(p.live and (p.pgrp == pgid or p.pid in wanted) for p in all_procs())


def kill_tree_now(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the group led by `proc` and every descendant, without waiting."""
    signal_tree(proc.pid, descendants(proc.pid), signal.SIGKILL)


async def kill_tree(proc: asyncio.subprocess.Process, grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM the group led by `proc` and every descendant; SIGKILL what is left after
    `grace_s`. Returns when the leader has been reaped (at most `grace_s` after the SIGKILL).

    Descendants are looked up while the leader still lives, so those that `setsid`'d away are
    found as long as their parent chain reaches the leader."""
    pgid = proc.pid
    pids = descendants(pgid)
    signal_tree(pgid, pids, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not tree_alive(pgid, pids):
            break
        await asyncio.sleep(POLL_S)
    else:
        pids = sorted(set(pids) | set(descendants(pgid)))
        signal_tree(pgid, pids, signal.SIGKILL)
    await reaped(proc, grace_s)


async def end_after_interrupt(proc: asyncio.subprocess.Process) -> None:
    """The awaiting task was cancelled (or failed): end the tree the usual way, or with
    SIGKILL at once if this is interrupted too."""
    try:
        await kill_tree(proc)
    except BaseException:
        kill_tree_now(proc)


# ---------------------------------------------------------------------------- the runner

async def pump(stream: asyncio.StreamReader | None, capture: Capture,
               on_data=lambda: None) -> None:
    if stream is None:
        return
    while True:
        data = await stream.read(READ_CHUNK)
        if not data:
            return
        capture.add(data)
        on_data()


async def feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        try:
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass


async def spawn(argv: list[str], *, cwd: str | None, env: dict[str, str] | None,
                stdin: bytes | None, merge_stderr: bool) -> asyncio.subprocess.Process:
    """Start `argv` as the leader of a new session. Raises OSError when it cannot start."""
    return await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE,
        start_new_session=True,
    )


async def run(
    argv: list[str],
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    timeout_s: float | None = None,
    cancel: asyncio.Event | None = None,
    cap: int = DEFAULT_CAP,
    keep_tail: bool = False,
    merge_stderr: bool = True,
    linger_s: float = 0.25,
    limit_total: int | None = None,
) -> ProcResult:
    """Run `argv` in its own process group and wait for it, a timeout, `cancel`, or more
    than `limit_total` bytes of output (stdout and stderr together).

    `cap` bytes are kept per pipe (`keep_tail`: half head, half tail). Raises OSError when the
    program cannot be started (missing, not executable, bad cwd).
    """
    started = time.monotonic()
    proc = await spawn(argv, cwd=cwd, env=env, stdin=stdin, merge_stderr=merge_stderr)
    out = Capture(cap, keep_tail)
    err = None if merge_stderr else Capture(cap, keep_tail)
    too_much = asyncio.Event()

    def check_total() -> None:
        if limit_total is not None and out.total + (err.total if err else 0) > limit_total:
            too_much.set()

    readers = [asyncio.ensure_future(pump(proc.stdout, out, check_total))]
    if err is not None:
        readers.append(asyncio.ensure_future(pump(proc.stderr, err, check_total)))
    feeder = asyncio.ensure_future(feed(proc, stdin)) if stdin is not None else None
    try:
        status = await wait_exit(proc, timeout_s, cancel, too_much)
        ended = False
        if status == "exited":
            ended = await finish_output(proc, readers, linger_s)
        else:
            await kill_tree(proc)
            await asyncio.wait(readers, timeout=KILL_GRACE_S)
    except BaseException:
        await end_after_interrupt(proc)
        raise
    finally:
        for task in readers + ([feeder] if feeder else []):
            task.cancel()
    return ProcResult(status, proc.returncode, out, err,
                      int((time.monotonic() - started) * 1000), ended)


async def wait_exit(proc: asyncio.subprocess.Process, timeout_s: float | None,
                    cancel: asyncio.Event | None, too_much: asyncio.Event) -> Status:
    """Wait for the leader to exit; say why the wait ended.

    Polls `proc.returncode`: `proc.wait()` would also wait for the pipes to close, which a
    background process holding them can put off for ever."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while proc.returncode is None:
        if cancel is not None and cancel.is_set():
            return "cancelled"
        if too_much.is_set():
            return "overflow"
        if deadline is not None and time.monotonic() >= deadline:
            return "timeout"
        await asyncio.sleep(POLL_S)
    return "exited"


async def reaped(proc: asyncio.subprocess.Process, within_s: float) -> bool:
    """Wait up to `within_s` for the leader to be reaped; True if it was."""
    deadline = time.monotonic() + within_s
    while proc.returncode is None and time.monotonic() < deadline:
        await asyncio.sleep(POLL_S)
    return proc.returncode is not None


async def finish_output(proc: asyncio.subprocess.Process, readers: list[asyncio.Future],
                        linger_s: float) -> bool:
    """After the leader exited: read to the end of output; if processes left in the group
    still hold the pipes after `linger_s`, end the group. True if it did."""
    _, pending = await asyncio.wait(readers, timeout=linger_s)
    if not pending:
        return False
    pgid = proc.pid
    signal_tree(pgid, [], signal.SIGTERM)
    _, pending = await asyncio.wait(pending, timeout=KILL_GRACE_S)
    if pending:
        signal_tree(pgid, [], signal.SIGKILL)
        await asyncio.wait(pending, timeout=KILL_GRACE_S)
    return True

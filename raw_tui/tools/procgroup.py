"""Run one command in its own process group and tree; end the tree on timeout or cancel.

Used by `builtin/bash` and the hook runner (docs/gate.md and docs/hooks.md):

- the child starts a new session (`start_new_session=True`), so it leads its own process group,
  and a new tree (raw_tui.tools.proctree: every process carrying its token, wherever it
  double-forked to; raw-tui is a child subreaper and reaps those that re-parent to it);
- stdin is `/dev/null` unless bytes are given; stdout (and stderr, merged or apart) are read
  as they come and only `cap` bytes are kept (the head, or the head and the tail);
- on timeout, when `cancel` is set, or (with `limit_total`) when the output passes that many
  bytes: SIGTERM to the whole tree, SIGKILL 500 ms later;
- when the command exits but processes it left still hold the output pipes open, those
  (found by their open files, in or out of the group) get SIGTERM after `linger_s` seconds,
  SIGKILL 500 ms later; a background process whose output goes elsewhere is kept (detached
  on purpose: `nohup server >log 2>&1 &`) — `end_leftovers` ends those too, for hooks;
- if the awaiting task itself is cancelled, the tree is ended the same way before the
  cancellation goes on (SIGKILL at once if that is interrupted again).

`kill_tree(proc)` is the kill step on its own, for a caller that drives its own process.
"""

from __future__ import annotations

import asyncio
import os
import time
import weakref
from dataclasses import dataclass, field
from typing import Callable, Literal

from .proctree import KILL_GRACE_S, Tree, become_subreaper, reap
from . import proctree

POLL_S = 0.02
EXITED_POLL_S = 0.001  # the pidfd said it exited; asyncio has yet to reap it
DEFAULT_CAP = 64 * 1024
READ_CHUNK = 64 * 1024

ExitStatus = Literal["exited", "timeout", "cancelled", "overflow"]


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
    status: ExitStatus
    returncode: int | None  # the exit code; negative for a signal; None when never reaped
    stdout: Capture
    stderr: Capture | None  # None when stderr was merged into stdout
    duration_ms: int
    ended_leftovers: bool = False  # processes left holding the output were ended


# ---------------------------------------------------------------------------- the kill step

_TREES: "weakref.WeakKeyDictionary[asyncio.subprocess.Process, Tree]" = \
    weakref.WeakKeyDictionary()


def tree_of(proc: asyncio.subprocess.Process) -> Tree:
    """The tree `proc` leads (one is made for a process started elsewhere)."""
    tree = _TREES.get(proc)
    if tree is None:
        tree = _TREES[proc] = Tree()
        tree.leader = proc.pid
    return tree


def kill_tree_now(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL every process of `proc`'s tree, without waiting."""
    tree = tree_of(proc)
    tree.end_now()
    tree.close()


async def kill_tree(proc: asyncio.subprocess.Process, grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM every process of `proc`'s tree (raw_tui.tools.proctree: its group, its
    descendants, and whatever carries its token, double-forked or not); SIGKILL what is
    left after `grace_s` (0: at once). Returns when the leader has been reaped (at most
    `grace_s` after the SIGKILL)."""
    tree = tree_of(proc)
    await tree.end(grace_s)
    tree.close()
    await reaped(proc, max(grace_s, KILL_GRACE_S))


async def end_after_interrupt(proc: asyncio.subprocess.Process) -> None:
    """The awaiting task was cancelled (or failed): end the tree the usual way, or with
    SIGKILL at once if this is interrupted too."""
    try:
        await kill_tree(proc)
    except BaseException:
        kill_tree_now(proc)


async def end_leftovers(proc: asyncio.subprocess.Process, window_s: float) -> bool:
    """After the leader exited: give what it left running `window_s` seconds to end by
    itself, then end it. True if something had to be ended."""
    tree = tree_of(proc)
    deadline = time.monotonic() + window_s
    try:
        while tree.anything_left() and tree.members():
            if time.monotonic() >= deadline:
                await tree.end()
                return True
            await asyncio.sleep(POLL_S)
        return False
    finally:
        tree.close()
        reap()


def keep_leftovers(proc: asyncio.subprocess.Process) -> None:
    """After the leader exited normally: what it left running is kept (a daemon started on
    purpose), watched only to be reaped when it ends."""
    tree = tree_of(proc)
    if tree.anything_left():
        tree.members()
    tree.close()
    reap()


# ---------------------------------------------------------------------------- the runner

async def pump(stream: asyncio.StreamReader | None, capture: Capture,
               on_data: Callable[[bytes], None] = lambda data: None) -> None:
    if stream is None:
        return
    while True:
        data = await stream.read(READ_CHUNK)
        if not data:
            return
        capture.add(data)
        on_data(data)


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
    """Start `argv` as the leader of a new session and of a new tree (raw-tui becomes a
    child subreaper first). Raises OSError when it cannot start."""
    become_subreaper()
    reap()
    tree = Tree()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=tree.env(env),
            stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except BaseException:  # cancelled while asyncio connected the pipes: the process
        tree.end_now()  # may run already (asyncio kills only its pid), so end the tree
        tree.close()
        raise
    tree.leader = proc.pid
    proctree._LEADERS[proc.pid] = proc
    _TREES[proc] = tree
    return proc


def pipe_inodes(proc: asyncio.subprocess.Process) -> set[int]:
    """The inodes of `proc`'s stdout and stderr pipes (empty where asyncio hides them)."""
    found = set()
    transport = getattr(proc, "_transport", None)
    for fd in (1, 2):
        try:
            pipe = transport.get_pipe_transport(fd).get_extra_info("pipe")
            found.add(os.fstat(pipe.fileno()).st_ino)
        except (AttributeError, OSError, ValueError):
            continue
    return found


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
    on_output: Callable[[bytes], None] | None = None,
) -> ProcResult:
    """Run `argv` in its own process group and wait for it, a timeout, `cancel`, or more
    than `limit_total` bytes of output (stdout and stderr together).

    `cap` bytes are kept per pipe (`keep_tail`: half head, half tail); `on_output` is given
    every piece read, as it arrives. Raises OSError when the program cannot be started
    (missing, not executable, bad cwd).
    """
    started = time.monotonic()
    proc = await spawn(argv, cwd=cwd, env=env, stdin=stdin, merge_stderr=merge_stderr)
    out = Capture(cap, keep_tail)
    err = None if merge_stderr else Capture(cap, keep_tail)
    too_much = asyncio.Event()

    def arrived(data: bytes) -> None:
        if on_output is not None:
            on_output(data)
        if limit_total is not None and out.total + (err.total if err else 0) > limit_total:
            too_much.set()

    readers = [asyncio.ensure_future(pump(proc.stdout, out, arrived))]
    if err is not None:
        readers.append(asyncio.ensure_future(pump(proc.stderr, err, arrived)))
    feeder = asyncio.ensure_future(feed(proc, stdin)) if stdin is not None else None
    try:
        status = await wait_exit(proc, timeout_s, cancel, too_much)
        ended = False
        if status == "exited":
            ended = await finish_output(proc, readers, linger_s)
            keep_leftovers(proc)
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
                    cancel: asyncio.Event | None, too_much: asyncio.Event) -> ExitStatus:
    """Wait for the leader to exit; say why the wait ended.

    Polls `proc.returncode`: `proc.wait()` would also wait for the pipes to close, which a
    background process holding them can put off for ever."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    exit_signal = ExitSignal(proc.pid)
    try:
        while proc.returncode is None:
            if cancel is not None and cancel.is_set():
                return "cancelled"
            if too_much.is_set():
                return "overflow"
            if deadline is not None and time.monotonic() >= deadline:
                return "timeout"
            await exit_signal.wait(POLL_S)
        return "exited"
    finally:
        exit_signal.close()


class ExitSignal:
    """Wakes a waiter as soon as a child process exits, through its pidfd (Linux ≥ 5.3), not
    at the next poll: a command that ran in 2 ms was reported after 20. Where no pidfd can be
    opened the waiter waits out its interval, as before."""

    def __init__(self, pid: int) -> None:
        self.loop = asyncio.get_running_loop()
        self.exited = asyncio.Event()
        self.fd: int | None = None
        try:
            self.fd = os.pidfd_open(pid)
        except ProcessLookupError:  # gone already: asyncio's watcher has it
            self.exited.set()
        except (AttributeError, OSError):  # no pidfd here: poll
            return
        else:
            self.loop.add_reader(self.fd, self.fire)

    def fire(self) -> None:
        self.close()
        self.exited.set()

    def close(self) -> None:
        if self.fd is not None:
            self.loop.remove_reader(self.fd)
            os.close(self.fd)
            self.fd = None

    async def wait(self, within_s: float) -> None:
        """Until the process exits or `within_s` passes. Once it has exited, asyncio's child
        watcher sets the returncode a moment later: the wait is then a short one."""
        if self.exited.is_set():
            await asyncio.sleep(EXITED_POLL_S)
            return
        try:
            async with asyncio.timeout(within_s):
                await self.exited.wait()
        except TimeoutError:
            pass


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
    inodes = pipe_inodes(proc)
    _, pending = await asyncio.wait(readers, timeout=linger_s)
    if not pending:
        return False
    await tree_of(proc).end_holders(inodes)
    await asyncio.wait(pending, timeout=KILL_GRACE_S)
    return True

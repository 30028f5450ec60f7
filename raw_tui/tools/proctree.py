"""The processes of one command, however far they wander, and how they end.

A process group cannot see a child that double-forks into a new session
(`(setsid sleep 999 &)`): it leaves the group, and once its parent exits nothing links it to
the command that started it. Two things close that gap:

- **Attribution by environment.** Each tree gets a token, put in `RAW_TUI_PROC` in the
  environment of its first process; every descendant inherits it, wherever it moves. A
  tree's members are the live processes whose environment carries the token, the
  descendants of the leader and of those processes, and the leader's process group. (A
  process that clears its environment *and* leaves the tree escapes; see docs/decisions.md.)
  `RAW_TUI_PROC` holds a space-separated list, so a raw-tui running inside another's command
  stays visible to both. Only processes started after raw-tui have their environment read.
- **raw-tui is a child subreaper** (`prctl(PR_SET_CHILD_SUBREAPER)`): orphans re-parent to it
  instead of to PID 1, so they stay in its process tree and it reaps them once they end
  (only pids seen as members of some tree are waited for: never a child someone else waits
  for).

`Tree.end()` sends SIGTERM to every member, SIGKILL to what is left after the grace period
(`grace_s=0`: SIGKILL at once), repeating the SIGKILL sweep until no member is left (a
process forking in a loop cannot outrun it), then reaps. Trees not yet closed are ended
with SIGKILL when the interpreter exits (`atexit`), whatever ended it.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import itertools
import os
import signal
import time
import weakref
from dataclasses import dataclass

ENV_KEY = "RAW_TUI_PROC"
KILL_GRACE_S = 0.5
SCAN_POLL_S = 0.02
KILL_ROUNDS = 20

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37

_counter = itertools.count(1)
_subreaper: bool | None = None


# ---------------------------------------------------------------------------- subreaper

def become_subreaper() -> bool:
    """Make this process a child subreaper (once); False where the kernel refuses."""
    global _subreaper
    if _subreaper is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def is_subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        value = ctypes.c_int(0)
        if libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0) != 0:
            return False
        return value.value == 1
    except (OSError, AttributeError):
        return False


# ---------------------------------------------------------------------------- /proc

@dataclass(frozen=True)
class ProcStat:
    pid: int
    state: bytes  # b"R", b"S", ..., b"Z" for a zombie
    ppid: int
    pgrp: int
    start: int  # clock ticks after boot

    @property
    def live(self) -> bool:
        return self.state not in (b"Z", b"X")


def proc_stat(pid: int) -> ProcStat | None:
    """A process's state, parent, group and start time; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    fields = stat[stat.rfind(b")") + 2:].split()
    try:
        return ProcStat(pid, fields[0], int(fields[1]), int(fields[2]), int(fields[19]))
    except (IndexError, ValueError):
        return None


def all_procs() -> list[ProcStat]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    found = (proc_stat(int(n)) for n in names if n.isdigit())
    return [p for p in found if p is not None]


def tokens_of(pid: int) -> list[str]:
    """The tree tokens in a process's environment (none when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read()
    except OSError:
        return []
    key = ENV_KEY.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(key):
            return entry[len(key):].decode(errors="replace").split()
    return []


_MY_START: int | None = None


def my_start() -> int:
    global _MY_START
    if _MY_START is None:
        mine = proc_stat(os.getpid())
        _MY_START = mine.start if mine else 0
    return _MY_START


def own_children() -> set[int] | None:
    """The children of this process's main thread, where the kernel puts adopted orphans
    (`/proc/self/task/PID/children`); None when the kernel hides them."""
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
            return {int(child) for child in f.read().split()}
    except OSError:
        return None


def alive(pid: int) -> bool:
    st = proc_stat(pid)
    return st is not None and st.live


def holds_pipe(pid: int, inodes: set[int]) -> bool:
    """True when one of `pid`'s open files is one of the pipes `inodes`."""
    wanted = {f"pipe:[{ino}]" for ino in inodes}
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") in wanted:
                return True
        except OSError:
            continue
    return False


def send(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


# ---------------------------------------------------------------------------- trees

class Tree:
    """The processes of one command. `env()` gives the environment its first process must
    start with; `leader` is that process's pid once started (it leads its own group)."""

    def __init__(self) -> None:
        self.token = f"{os.getpid()}.{next(_counter)}"
        self.leader: int | None = None
        _OPEN[self.token] = self

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env[ENV_KEY] = f"{env.get(ENV_KEY, '')} {self.token}".strip()
        return env

    def members(self) -> list[int]:
        """Live processes of this tree (never this process itself)."""
        procs = all_procs()
        first = my_start()
        me = os.getpid()
        roots = {p.pid for p in procs if p.live and p.start >= first and p.pid != me
                 and self.token in tokens_of(p.pid)}
        if self.leader is not None:
            roots.add(self.leader)
            roots.update(p.pid for p in procs if p.pgrp == self.leader)
        children: dict[int, list[int]] = {}
        for p in procs:
            children.setdefault(p.ppid, []).append(p.pid)
        found, todo = set(roots), list(roots)
        while todo:
            for child in children.get(todo.pop(), []):
                if child not in found:
                    found.add(child)
                    todo.append(child)
        found.discard(me)
        _SEEN.update(found)  # zombies too: they are reaped once they are ours
        live = {p.pid for p in procs if p.live}
        return sorted(found & live)

    def anything_left(self) -> bool:
        """Cheaply, whether the tree may still have a live member: its group is not empty, or
        this process has a child it did not start itself (an adopted orphan: once the leader
        has exited, every process of the tree is in its group or below such a child). True
        when it cannot tell; then `members()` answers."""
        if self.leader is not None:
            try:
                os.killpg(self.leader, 0)
                return True
            except ProcessLookupError:
                pass
            except OSError:
                return True
        children = own_children()
        if children is None or not _subreaper:
            return True
        others = children - {pid for pid, proc in list(_LEADERS.items())
                             if proc.returncode is None}
        return any(alive(pid) for pid in others)  # a zombie runs nothing (see reap)

    def signal(self, sig: int, pids: list[int] | None = None) -> list[int]:
        """Send `sig` to each member and to the leader's group; the members signalled."""
        pids = self.members() if pids is None else pids
        if self.leader is not None:
            try:
                os.killpg(self.leader, sig)
            except (ProcessLookupError, PermissionError):
                pass
        send(pids, sig)
        return pids

    async def end(self, grace_s: float = KILL_GRACE_S) -> None:
        """SIGTERM every member, SIGKILL what is left after `grace_s` (0: SIGKILL at once)."""
        if grace_s > 0 and self.signal(signal.SIGTERM):
            deadline = time.monotonic() + grace_s
            while time.monotonic() < deadline and self.members():
                await asyncio.sleep(SCAN_POLL_S)
        for _ in range(KILL_ROUNDS):
            if not self.signal(signal.SIGKILL):
                break
            await asyncio.sleep(0.005)
        reap()

    def end_now(self) -> None:
        """SIGKILL every member without yielding (for interrupted clean-ups and exit)."""
        for _ in range(KILL_ROUNDS):
            if not self.signal(signal.SIGKILL):
                break
            time.sleep(0.005)
        reap()

    async def end_holders(self, inodes: set[int], grace_s: float = KILL_GRACE_S) -> bool:
        """End the members that hold one of the pipes `inodes` open (and the leader's
        group); True if there were any."""
        pids = [pid for pid in self.members() if holds_pipe(pid, inodes)]
        if self.leader is not None:
            try:
                os.killpg(self.leader, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        send(pids, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and any(alive(pid) for pid in pids):
            await asyncio.sleep(SCAN_POLL_S)
        if self.leader is not None:
            try:
                os.killpg(self.leader, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        send([pid for pid in pids if alive(pid)], signal.SIGKILL)
        reap()
        return bool(pids)

    def close(self) -> None:
        """The command is over: what is left of the tree (a daemon it left on purpose) is
        no longer ended with it, only reaped once it ends."""
        _OPEN.pop(self.token, None)


_OPEN: dict[str, Tree] = {}  # trees whose command is not over: ended at exit
_SEEN: set[int] = set()  # pids seen as members: reaped when they end as our children
_LEADERS: "weakref.WeakValueDictionary[int, asyncio.subprocess.Process]" = \
    weakref.WeakValueDictionary()
# pid -> the asyncio process of a tree's leader: asyncio reaps those


# Programs whose own child can outlive them: bubblewrap's namespace init is SIGKILLed when the
# bwrap that waited for it exits, so it ends as raw-tui's zombie child (raw-tui is a child
# subreaper) after its tree's scan, with no waiter: two of them a sandboxed call, one a probe.
ADOPTED = frozenset({"bwrap"})


def comm(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().rstrip(b"\n").decode(errors="replace")
    except OSError:
        return None


def reap_adopted() -> tuple[int, int]:
    """Wait for zombie children of ours named in ADOPTED that no one waits for (a leader
    asyncio waits for is left to asyncio); (how many were reaped, how many such children
    still run)."""
    children = own_children() if _subreaper else None
    if not children:
        return 0, 0
    waited = {pid for pid, proc in list(_LEADERS.items())
              if proc.returncode is None}
    reaped = running = 0
    for pid in children - waited:
        if comm(pid) not in ADOPTED:
            continue
        st = proc_stat(pid)
        if st is not None and st.live:
            running += 1
            continue
        try:
            os.waitpid(pid, os.WNOHANG)
            reaped += 1
        except ChildProcessError:  # its own waiter was first
            pass
        _SEEN.discard(pid)
    return reaped, running


def reap() -> int:
    """Wait for members seen earlier that ended as this process's children (adopted orphans
    and leaders' children), and for the zombies of ADOPTED; returns how many were reaped."""
    me = os.getpid()
    count = reap_adopted()[0]
    for pid in list(_SEEN):
        proc = _LEADERS.get(pid)
        if proc is not None and proc.returncode is None:
            continue  # asyncio waits for its own
        _LEADERS.pop(pid, None)
        st = proc_stat(pid)
        if st is None:
            _SEEN.discard(pid)
        elif st.ppid == me and not st.live:
            try:
                os.waitpid(pid, os.WNOHANG)
                count += 1
            except ChildProcessError:
                pass
            _SEEN.discard(pid)
    return count


def end_all_now() -> None:
    """SIGKILL every open tree (raw-tui is ending)."""
    for tree in list(_OPEN.values()):
        tree.end_now()
        tree.close()


atexit.register(end_all_now)

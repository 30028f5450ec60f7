"""Tool code that may never return, run off the event loop under a deadline.

`validate_args`, `describe_effects` and plain (non-`async`) handlers are a tool author's
synchronous code: one that spins or blocks must not freeze the event loop (SIGINT, Esc and
the screen keep working) and must not hold the call for ever. Each runs in a daemon worker
thread; the caller awaits it until it returns, its deadline passes (`Overdue`) or the call
is cancelled (`Cancelled`, after `grace_s` for the code to see `ctx.cancelled` and return).

A thread cannot be killed. One whose caller stopped waiting is *abandoned*: it runs on,
counted in `stuck()` until it returns (the dispatcher says so in a warning notice), and it
never holds up raw-tui's exit (daemon threads). Workers are reused, so a call costs a hand-off,
not a new thread (see `_Pool`); an abandoned worker is replaced by
a new one when one is needed.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Callable

from ..cancel import Cancelled
from . import same_cpu

LOAD_DEADLINE_S = 5.0  # importing a tool's module (its top-level code), at first use
VALIDATE_DEADLINE_S = 5.0  # validate_args
EFFECTS_DEADLINE_S = 5.0  # describe_effects
HANDLER_DEADLINE_S = 600.0  # a plain handler (bash's longest command timeout)
CANCEL_GRACE_S = 2.0  # a plain handler's time to return after a cancel
QUICK_S = 0.002  # quick code is awaited without a round trip through the event loop


class Overdue(Exception):
    """The code did not return within its deadline (it was abandoned)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not return within {seconds:g} s")
        self.seconds = seconds


class Escaped(Exception):
    """Tool code raised a `BaseException` that is not an `Exception` (`SystemExit`,
    `KeyboardInterrupt`, `GeneratorExit`, ...): handed to the caller as a plain error of that
    call, never as the end of raw-tui. Its text is `TYPE: MESSAGE`."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(describe(error))
        self.error = error


def describe(error: BaseException) -> str:
    """`TYPE: MESSAGE` (or `TYPE`) of an exception, even one whose `str()` raises."""
    try:
        text = str(error)
    except Exception:  # a tool's own exception class may break its own __str__
        text = ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def escaped(error: BaseException) -> Exception:
    """`error` as an `Exception` (an `Escaped` when it is not one)."""
    return error if isinstance(error, Exception) else Escaped(error)


class _Job:
    __slots__ = ("fn", "args", "lock", "finished", "done", "value", "error", "loop",
                 "future", "abandoned", "held")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn, self.args = fn, args
        self.lock = threading.Lock()
        self.finished = False
        self.done = threading.Lock()  # held until the code returned (cheaper than an Event)
        self.done.acquire()
        self.value: Any = None
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.future: asyncio.Future | None = None
        self.abandoned = False
        self.held = False  # the worker was woken on the caller's CPU (raw_tui.tools.same_cpu)

    def run(self, then: Callable[[], None]) -> None:
        """Run the code, then `then()` (the worker is free again), then wake the caller: the
        worker's last steps come before the wake-up, so the caller does not wait for them."""
        if self.held:  # the code, its threads and its processes get every CPU
            same_cpu.let_go()
        try:
            self.value = self.fn(*self.args)
        except BaseException as err:  # handed to the caller, as an Exception (Escaped)
            self.error = escaped(err)
        then()
        with self.lock:
            self.finished = True
            loop, future, abandoned = self.loop, self.future, self.abandoned
        if abandoned:
            _Pool.returned()
        elif future is not None:
            try:
                loop.call_soon_threadsafe(_settle, future)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass
        self.done.release()  # last: a caller woken here does not wait for this thread's GIL

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value

    def abandon(self) -> bool:
        """Stop waiting; True if the code is still running (it is then counted stuck)."""
        with self.lock:
            if self.finished:
                return False
            self.abandoned = True
        _Pool.left()
        return True


def _settle(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


class _Worker:
    """One daemon thread running the jobs put on its own queue, one at a time."""

    __slots__ = ("jobs", "tid")

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.tid = 0  # its thread's native id, once it runs


class _Pool:
    """Idle workers on a stack (the most recently used first: its caches are warm); a new one
    starts when none is idle.

    A hand-off is two thread wake-ups, both on the caller's CPU where it can be
    (raw_tui/tools/same_cpu.py; docs/decisions.md, "Dispatch")."""

    lock = threading.Lock()
    idle: list[_Worker] = []
    stuck = 0

    @classmethod
    def take(cls) -> _Worker:
        """An idle worker, or a new one."""
        with cls.lock:
            worker = cls.idle.pop() if cls.idle else None
        if worker is None:
            worker = _Worker()
            started = threading.Event()
            threading.Thread(target=cls._work, args=(worker, started),
                             name="raw-tui tool code", daemon=True).start()
            started.wait()
        return worker

    @classmethod
    def _work(cls, worker: _Worker, started: threading.Event) -> None:
        worker.tid = threading.get_native_id()
        started.set()
        while True:
            job = worker.jobs.get()
            job.run(then=lambda: cls._free(worker))

    @classmethod
    def _free(cls, worker: _Worker) -> None:
        with cls.lock:
            cls.idle.append(worker)

    @classmethod
    def left(cls) -> None:
        with cls.lock:
            cls.stuck += 1

    @classmethod
    def returned(cls) -> None:
        with cls.lock:
            cls.stuck -= 1


def stuck() -> int:
    """How many abandoned calls are still running in their threads."""
    return _Pool.stuck


async def run_in_worker(fn: Callable[..., Any], *args: Any, deadline_s: float | None,
                        cancel: asyncio.Event | None = None, grace_s: float = 0.0) -> Any:
    """`fn(*args)` in a worker thread: its value (or its exception, a `BaseException` that is
    not an `Exception` as `Escaped`), `Overdue` after
    `deadline_s`, or `Cancelled` when `cancel` is set and `fn` has not returned `grace_s`
    later. If the awaiting task is cancelled, `fn` is abandoned and the cancellation goes on."""
    if deadline_s is not None and deadline_s <= 0:
        raise Overdue(0.0)  # no time at all: not even started
    job = _Job(fn, args)
    worker = _Pool.take()
    job.held = same_cpu.hold(worker.tid)
    worker.jobs.put(job)
    quick = QUICK_S if deadline_s is None else min(QUICK_S, deadline_s)
    returned = job.done.acquire(timeout=quick)  # blocks the loop for at most QUICK_S
    if job.held:
        same_cpu.let_go()
    if returned:
        return job.outcome()
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    with job.lock:
        job.loop, job.future = loop, future
        finished = job.finished
    if finished:
        return job.outcome()
    waits: set[asyncio.Future] = {future}
    cancelled = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    if cancelled is not None:
        waits.add(cancelled)
    try:
        done, _ = await asyncio.wait(waits, timeout=deadline_s,
                                     return_when=asyncio.FIRST_COMPLETED)
        if future not in done and cancelled is not None and cancelled in done and grace_s > 0:
            await asyncio.wait({future}, timeout=grace_s)
    except BaseException:
        job.abandon()
        raise
    finally:
        if cancelled is not None:
            cancelled.cancel()
    if job.abandon():
        if cancel is not None and cancel.is_set():
            raise Cancelled
        raise Overdue(deadline_s or 0.0)
    return job.outcome()

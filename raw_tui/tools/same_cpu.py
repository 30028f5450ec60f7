"""A hand-off to a worker thread woken on the caller's own CPU, for quick tool code.

A hand-off wakes the worker and, once the code has returned, the caller. On a virtual
machine whose other CPU is idle, each wake-up of a halted CPU costs tens of microseconds
(measured here: a no-op call through the gate took 63 µs under load and 160-180 µs on an
idle machine). So the caller holds itself and the worker on the caller's CPU for the
hand-off: the worker is woken there, and lets go of the hold first thing, before the tool's
code runs (that code, its threads and every process it starts run on every CPU raw-tui may
use); the caller, held there while it waits, is woken there and lets go too. A hand-off
is then two switches on one CPU, and no CPU has to wake up.

Linux only (`sched_getcpu`, `sched_setaffinity`); elsewhere, with one CPU, or if a call
fails, nothing is held.
"""

from __future__ import annotations

import ctypes
import os
import sys


def _load_getcpu():
    if not sys.platform.startswith("linux"):
        return None
    try:
        getcpu = ctypes.CDLL(None).sched_getcpu
    except (OSError, AttributeError):
        return None
    getcpu.restype = ctypes.c_int
    getcpu.argtypes = []
    return getcpu


def _all_cpus() -> tuple[int, ...] | None:
    try:
        cpus = tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return None
    return cpus if len(cpus) > 1 else None  # one CPU: nothing to gain


_getcpu = _load_getcpu()
ALL = _all_cpus() if _getcpu is not None else None


def hold(worker_tid: int) -> bool:
    """Hold the caller and the worker `worker_tid` on the caller's CPU; whether they are."""
    if ALL is None or not worker_tid:
        return False
    cpu = _getcpu()
    if cpu not in ALL:
        return False
    try:
        os.sched_setaffinity(0, (cpu,))
        os.sched_setaffinity(worker_tid, (cpu,))
    except OSError:
        let_go()
        return False
    return True


def let_go() -> None:
    """The calling thread's CPUs back (the caller after its wait, the worker once woken)."""
    try:
        os.sched_setaffinity(0, ALL)
    except OSError:
        pass

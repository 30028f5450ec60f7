"""Finding processes a test started, by a marker in their command line, to prove that none
survived (zombies do not count: they have ended) and to clean up whatever did."""

from __future__ import annotations

import os
import random
import signal
import time

from raw_tui.tools.proctree import all_procs
from tests.config_kit import alive


def marker() -> str:
    """A `sleep` duration no other test uses: `sleep {marker}` is findable in /proc."""
    return str(random.randrange(10**7, 10**8))




def with_marker(mark: str) -> list[int]:
    """Live processes whose command line holds `mark` as a whole argument."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if mark.encode() in args and alive(name):
            found.append(int(name))
    return found


def survivors(mark: str, settle_s: float = 1.0) -> list[int]:
    """Processes holding `mark` that are still alive after up to `settle_s` seconds."""
    deadline = time.monotonic() + settle_s
    while True:
        found = with_marker(mark)
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


def kill_marked(mark: str) -> None:
    for pid in with_marker(mark):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def zombie_children() -> list[int]:
    """Zombies whose parent is this process (orphans adopted and never reaped)."""
    me = os.getpid()
    return [p.pid for p in all_procs() if p.state == b"Z" and p.ppid == me]

"""`python -m tests.reaper PID`: ends what a test run left behind once its pytest is gone.

The test run (pytest, PID) marks every process it starts: `RAW_TUI_TEST_RUN=PID` in the
environment, inherited by session hosts, tmux servers, UIs and `serve`. The per-test
fixture ends what each test left; but a pytest killed by a timeout (SIGKILL) runs no
teardown, and detached hosts outlive it. This reaper runs in its own session (a `timeout`
killing pytest's process group does not reach it), waits for PID to exit, then ends every
process still carrying the mark: SIGTERM, then SIGKILL after a grace.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from pathlib import Path

from tests.config_kit import alive

MARK_ENV = "RAW_TUI_TEST_RUN"
GRACE_S = 10.0


def marked(mark: str) -> list[int]:
    """Processes whose environment carries RAW_TUI_TEST_RUN=mark (not this one)."""
    needle = f"{MARK_ENV}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(int(entry))
        except OSError:
            continue
    return found


def end_marked(mark: str, grace: float = GRACE_S) -> list[int]:
    """SIGTERM to every marked process, SIGKILL to those left after `grace`; returns them."""
    pids = marked(mark)
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    left = pids
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [pid for pid in left if alive(pid)]
    for pid in left:
        _signal(pid, signal.SIGKILL)
    return pids


def wait_for_exit(pid: int) -> None:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        select.select([fd], [], [])  # readable when the process ends
    finally:
        os.close(fd)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv: list[str]) -> int:
    (mark,) = argv
    wait_for_exit(int(mark))
    end_marked(mark)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

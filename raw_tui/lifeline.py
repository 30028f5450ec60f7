"""The UI process ends when its terminal goes away, even when it is stuck.

A dropped SSH connection or a closed terminal hangs up the UI's terminal; a browser tab's
server going away closes the UI's output pipe. The UI then gets SIGHUP (when the terminal
was its controlling one) and ends cleanly. Two things could leave it running for ever: no
SIGHUP at all (a terminal that was not the controlling one, a pipe), and a UI stuck on the
dead terminal (Textual's output thread dies on EIO, then the app blocks in a futex waiting
for it, even at exit). So:

- `watch_output(fd)` waits in a daemon thread for `fd` to hang up (`poll` with no events
  reports only POLLHUP/POLLERR: no cost while the terminal lives), then sends this process
  SIGHUP and arms `exit_later`;
- `exit_later(grace)` ends the process with `os._exit` if it is still there `grace` seconds
  later. A hosted session loses nothing (the host carries on); an in-process one gets a
  longer grace to close its session.
"""

from __future__ import annotations

import os
import select
import signal
import threading

HOSTED_GRACE_S = 5.0  # the client only detaches
IN_PROCESS_GRACE_S = 30.0  # the session closes in this process (SessionEnd hooks)
EXIT_CODE = 129  # 128 + SIGHUP

_armed = threading.Lock()
_watched: set[int] = set()


def exit_later(grace: float, code: int = EXIT_CODE) -> None:
    """End the process `grace` seconds from now unless it ended by itself (once)."""
    if not _armed.acquire(blocking=False):
        return
    timer = threading.Timer(grace, os._exit, args=(code,))
    timer.daemon = True
    timer.name = "raw-tui-exit-later"
    timer.start()


def watch_output(fd: int, grace: float) -> None:
    """When `fd` (the terminal, or a pipe) hangs up: SIGHUP to this process, and
    `exit_later(grace)`. Does nothing for a file, or a descriptor watched already."""
    if fd in _watched:
        return
    _watched.add(fd)
    thread = threading.Thread(target=_wait_for_hangup, args=(fd, grace), daemon=True,
                              name="raw-tui-lifeline")
    thread.start()


def _wait_for_hangup(fd: int, grace: float) -> None:
    poller = select.poll()
    try:
        poller.register(fd, 0)  # POLLHUP, POLLERR and POLLNVAL are reported anyway
        while True:
            masks = [mask for _, mask in poller.poll()]
            if any(mask & select.POLLNVAL for mask in masks):
                return  # closed by this process: nothing to watch
            if any(mask & (select.POLLHUP | select.POLLERR) for mask in masks):
                break
    except (OSError, ValueError):
        return
    exit_later(grace)
    os.kill(os.getpid(), signal.SIGHUP)

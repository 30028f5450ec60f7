"""The UI ends when its terminal goes away, whether or not the kernel tells it with SIGHUP.

A real pseudo-terminal: the UI draws the demo's approval modal, then the test closes the
terminal's master side, as sshd does when an SSH connection drops (the UI's controlling
terminal: SIGHUP and SIGCONT come with the hang-up) or as a terminal that was not the
controlling one dies (no signal: only the hung-up descriptor tells). The UI used to stay
for ever: blocked in a futex at exit (Textual resumed its output on the dead terminal at
SIGCONT), or spinning on the hung-up input with no signal at all. A hosted session carries
on: its approval still waits for the next client.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time

import pytest

from tests.e2e.terminal_kit import RAW_TUI, isolated_env, place

__all__ = ["place"]

EXIT_TIMEOUT_S = 15.0


def start_in_pty(argv: list[str], *, cwd, env, controlling: bool) -> tuple[subprocess.Popen, int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))

    def take_terminal() -> None:  # as a login shell's job: the pty is its controlling tty
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                               env={**env, "TERM": "xterm-256color"},
                               preexec_fn=take_terminal if controlling else os.setpgrp)
    os.close(slave)
    return process, master


def read_until(master: int, needle: str, timeout: float = 30.0) -> None:
    """Until `needle` shows on the screen (a pyte emulator of the pty's 100x30): the writer
    sends only the cells that change, so a line's text is not one run of bytes."""
    import pyte

    from tests.e2e.slow_link_kit import BceScreen

    screen = BceScreen(100, 30)
    stream = pyte.ByteStream(screen)
    deadline = time.monotonic() + timeout
    while needle not in "\n".join(screen.display):
        left = deadline - time.monotonic()
        assert left > 0, f"no {needle!r} on the screen:\n" + "\n".join(screen.display)
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            stream.feed(os.read(master, 65536))


@pytest.mark.parametrize("controlling", [True, False], ids=["sighup", "no-signal"])
@pytest.mark.parametrize("mode", [[], ["--no-detach"]], ids=["hosted", "in-process"])
def test_the_ui_ends_when_its_terminal_hangs_up(place, mode, controlling):
    env = isolated_env(place)
    process, master = start_in_pty([str(RAW_TUI), *mode], cwd=place / "w", env=env,
                                   controlling=controlling)
    try:
        read_until(master, "idle")
        os.write(master, b"hello\r")
        read_until(master, "Approve write_file?")
        os.close(master)
        master = -1
        assert process.wait(EXIT_TIMEOUT_S) == 130  # the clean way out, not the last resort
    finally:
        if master >= 0:
            os.close(master)
        if process.poll() is None:
            process.kill()
            process.wait()
    listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=env, cwd=place / "w",
                             capture_output=True, text=True, timeout=60)
    (row,) = listing.stdout.splitlines()
    if mode:
        assert " live " not in row
    else:  # the host carries on, the approval waits
        assert "live (waiting for approval)" in row

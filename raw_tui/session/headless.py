"""One headless turn, for `raw-tui run PROMPT [--output text|jsonl]` (raw_tui/cli/run.py).

No approver (an `ask` rule gives approval_required) and no interaction surface
(interaction_unavailable). Exit codes: 0 completed, 1 runtime error, 2 config, 3 max steps,
130 cancelled (SIGINT, SIGTERM, SIGHUP, or the reader of stdout went away).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Callable

from ..protocol import bus as ev
from ..cancel import on_stop_signals
from .open import UnknownSession, open_session
from .request import SessionRequest
from .textout import TextPrinter

EXIT_BY_STATUS = {"completed": 0, "error": 1, "max_steps": 3, "cancelled": 130}
EXIT_CANCELLED = 130
EXIT_HISTORY_FAILED = 1


def run_headless(request: SessionRequest, prompt: str, output: str) -> int:
    """One turn of the session `request` names on `prompt`, its events on stdout as `output`
    says (`text` or `jsonl`); the exit code."""
    try:
        return asyncio.run(_run(request, prompt, output))
    except UnknownSession as err:
        print(f"raw-tui: {err.message}", file=sys.stderr)
        return 1


class _Stop:
    """A stop asked for (SIGINT, SIGTERM, SIGHUP, stdout closed): cancels the running turn; one
    asked for before the turn started means the turn does not start."""

    def __init__(self) -> None:
        self.asked = False
        self.session = None

    def __call__(self) -> None:
        self.asked = True
        if self.session is not None:
            self.session.cancel()


class _Output:
    """A bus subscriber writing to stdout. When the reader goes away (`| head -1`), stdout
    is pointed at /dev/null (no error at exit) and the run is stopped."""

    def __init__(self, write: Callable[[ev.Event], None], stop: _Stop) -> None:
        self.write = write
        self.stop = stop
        self.broken = False

    def __call__(self, event: ev.Event) -> None:
        if self.broken:
            return
        try:
            self.write(event)
        except OSError:  # BrokenPipeError, or EIO from a terminal that hung up
            self.broken = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            self.stop()


async def _run(request: SessionRequest, prompt: str, output: str) -> int:
    bus = ev.Bus()
    out = sys.stdout
    stop = _Stop()
    if output == "jsonl":
        ended = False

        def write(event: ev.Event) -> None:
            # run_end is the last line (docs/command-line.md); the run's last turn runs SessionEnd
            # before it, and anything published later (a late notice) goes to history only
            nonlocal ended
            if ended:
                return
            out.write(ev.encode(event).decode() + "\n")
            out.flush()
            ended = isinstance(event, ev.RunEnd)
        bus.subscribe(_Output(write, stop))
    else:
        bus.subscribe(_Output(TextPrinter(out, sys.stderr), stop))
    session, _ = open_session(request, interactive=False, bus=bus)
    if session.store is not None:  # a history write failed: the run ends, exit 1 (no gap)
        session.store.on_failure = lambda err: stop()
    outcome = None
    with on_stop_signals(stop):
        try:
            await session.open()
            stop.session = session
            if not stop.asked:
                outcome = await session.run_turn(prompt, last=True)
        finally:
            await session.close()
    failed = session.store.failed if session.store is not None else None
    if failed is not None:
        print(f"raw-tui: {failed.message}", file=sys.stderr)
        return EXIT_HISTORY_FAILED
    if outcome is None:
        return EXIT_CANCELLED
    if outcome.status in ("error", "max_steps") and outcome.message:
        # one line on stderr in both modes (stdout stays exactly the events in jsonl)
        print(f"raw-tui: {outcome.code}: {outcome.message}", file=sys.stderr)
    return EXIT_BY_STATUS[outcome.status]

"""`raw-tui run PROMPT [--output text|jsonl]`: one headless turn.

No approver (an `ask` rule gives approval_required) and no interaction surface
(interaction_unavailable). Exit codes: 0 completed, 1 runtime error, 2 config, 3 max steps,
130 cancelled (SIGINT).
"""

from __future__ import annotations

import asyncio
import signal
import sys

from .. import bus as ev
from .open import UnknownSession, open_session
from .textout import TextPrinter

EXIT_BY_STATUS = {"completed": 0, "error": 1, "max_steps": 3, "cancelled": 130}


def cmd_run(args) -> int:
    prompt = args.prompt
    if prompt == "-":
        prompt = sys.stdin.read()
    if not prompt.strip():
        print("raw-tui: the prompt is empty", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_run(args, prompt))
    except UnknownSession as err:
        print(f"raw-tui: {err.message}", file=sys.stderr)
        return 1


async def _run(args, prompt: str) -> int:
    bus = ev.Bus()
    out = sys.stdout
    if args.output == "jsonl":
        def write(event: ev.Event) -> None:
            out.write(ev.encode(event).decode() + "\n")
            out.flush()
        bus.subscribe(write)
    else:
        bus.subscribe(TextPrinter(out, sys.stderr))
    session, _ = open_session(args, interactive=False, bus=bus)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, session.cancel)
    loop.add_signal_handler(signal.SIGTERM, session.cancel)
    try:
        await session.open()
        outcome = await session.run_turn(prompt)
    finally:
        await session.close()
        loop.remove_signal_handler(signal.SIGINT)
        loop.remove_signal_handler(signal.SIGTERM)
    if outcome.status in ("error", "max_steps") and outcome.message:
        # one line on stderr in both modes (stdout stays exactly the events in jsonl)
        print(f"raw-tui: {outcome.code}: {outcome.message}", file=sys.stderr)
    return EXIT_BY_STATUS[outcome.status]

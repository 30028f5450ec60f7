"""`raw-tui run PROMPT [--output text|jsonl]`: one headless turn (raw_tui/session/headless.py)."""

from __future__ import annotations

import sys

from .common import EXIT_CONFIG, session_request


def add(sub, common) -> None:
    import argparse

    run = sub.add_parser("run", parents=[common], help="one headless run")
    run.add_argument("prompt", help="the prompt, or - to read it from stdin")
    run.add_argument("--output", choices=("text", "jsonl"), default="text")
    run.add_argument("--continue", dest="continue_", action="store_true",
                     default=argparse.SUPPRESS)
    run.add_argument("--resume", metavar="ID", default=argparse.SUPPRESS)


def run(args) -> int:
    from ..session.headless import run_headless

    prompt = args.prompt
    if prompt == "-":
        prompt = sys.stdin.read()
    if not prompt.strip():
        print("raw-tui: the prompt is empty", file=sys.stderr)
        return EXIT_CONFIG
    return run_headless(session_request(args), prompt, args.output)

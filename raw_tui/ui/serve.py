"""`raw-tui serve`: the same UI in a browser, on 127.0.0.1 only, through textual-serve.

Each browser tab starts its own `raw-tui` process (a new session) with this command's
global options (`--config`, `--agent`, `--model`, and the working directory as `--cwd`).
`--continue` / `--resume` are not passed on: two tabs must not write the same session.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

HOST = "127.0.0.1"
TITLE = "raw-tui"


def app_command(args: Any) -> list[str]:
    """The command each tab runs: this interpreter's raw-tui, same global options."""
    argv = [sys.executable, "-m", "raw_tui"]
    for option, name in (("--config", "config"), ("--agent", "agent"), ("--model", "model")):
        value = getattr(args, name, None)
        if value:
            argv += [option, str(value)]
    argv += ["--cwd", str(args.cwd_path)]
    return argv


def cmd_serve(args: Any) -> int:
    try:
        from textual_serve.server import Server
    except ImportError:
        print("raw-tui: serve needs the textual-serve package (pip install textual-serve)",
              file=sys.stderr)
        return 1
    if getattr(args, "continue_", False) or getattr(args, "resume", None):
        print("raw-tui: serve starts a new session per tab; --continue/--resume are ignored",
              file=sys.stderr)
    server = Server(shlex.join(app_command(args)), host=HOST, port=args.port, title=TITLE)
    server.serve()
    return 0

"""`raw-tui serve`: the same UI in a browser, on 127.0.0.1 only, through textual-serve.

Each browser tab starts its own `raw-tui` process with this command's global options
(`--config`, `--agent`, `--model`, and the working directory as `--cwd`). With a session host
(the default) every tab attaches to the one session the command started (`--resume ID`:
attached while it lives, reopened from history after a Quit), so a browser and a terminal
(`raw-tui attach`) watch the same session. With `--no-detach` each tab runs its own new
session; `--continue` / `--resume` are not passed on: two tabs must not write one session.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

HOST = "127.0.0.1"
TITLE = "raw-tui"


def app_command(args: Any, session_id: str | None = None) -> list[str]:
    """The command each tab runs: this interpreter's raw-tui, same global options."""
    argv = [sys.executable, "-m", "raw_tui"]
    if session_id is not None:
        argv += ["--resume", session_id]
    else:
        argv += ["--no-detach"]
    for option, name in (("--config", "config"), ("--agent", "agent"), ("--model", "model")):
        value = getattr(args, name, None)
        if value:
            argv += [option, str(value)]
    argv += ["--cwd", str(args.cwd_path)]
    return argv


def cmd_serve(args: Any, session_id: str | None = None) -> int:
    """Serve tabs attached to the hosted session `session_id`, or (None) each with its own."""
    try:
        from textual_serve.server import Server
    except ImportError:
        print("raw-tui: serve needs the textual-serve package (pip install textual-serve)",
              file=sys.stderr)
        return 1
    reopen = getattr(args, "continue_", False) or getattr(args, "resume", None)
    if session_id is None and reopen:
        print("raw-tui: serve starts a new session per tab; --continue/--resume are ignored",
              file=sys.stderr)
    elif session_id is not None:
        print(f"raw-tui: serving session {session_id} (raw-tui attach {session_id} from a "
              f"terminal)", file=sys.stderr)
    server = Server(shlex.join(app_command(args, session_id)), host=HOST, port=args.port,
                    title=TITLE)
    server.serve()
    return 0

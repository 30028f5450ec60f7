"""`raw-tui serve`: the same UI in a browser, on 127.0.0.1 only, through textual-serve.

Each browser tab starts its own `raw-tui` process with this command's global options
(`--config`, `--agent`, `--model`, and the working directory as `--cwd`). With a session host
(the default) every tab attaches to the one session the command started (`--resume ID`:
attached while it lives, reopened from history after a Quit), so a browser and a terminal
(`raw-tui attach`) watch the same session. With `--no-detach` each tab runs its own new
session; `--continue` / `--resume` are not passed on: two tabs must not write one session.

Only whoever opens the printed URL (its token) may load the page or open a tab: see
`serve_guard.py`. The page is raw-tui's own (`serve_page.py`): nothing from outside the machine.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

HOST = "127.0.0.1"


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
    from .serve_guard import Guard

    guard = Guard(args.port)
    server = _guarded(Server)(shlex.join(app_command(args, session_id)), guard)
    server.serve()
    return 0


def _guarded(server_class: type) -> type:
    """textual-serve's Server behind the guard, with raw-tui's page and start-up lines."""
    from aiohttp import web

    from .serve_page import TITLE, handle_index

    class GuardedServer(server_class):
        def __init__(self, command: str, guard: Any) -> None:
            super().__init__(command, host=HOST, port=guard.port, title=TITLE)
            self.guard = guard

        async def _make_app(self) -> web.Application:
            app = web.Application(middlewares=[self.guard.middleware])
            app.add_routes([
                web.get("/", handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ])
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        async def on_startup(self, app: web.Application) -> None:
            print(f"raw-tui: serving on {self.guard.url}\n"
                  f"raw-tui: open that URL (it holds this run's token); Ctrl+C stops serving",
                  flush=True)

    return GuardedServer

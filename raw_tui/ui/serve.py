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

import asyncio
import shlex
import signal
import socket
import sys
from typing import Any, Callable

HOST = "127.0.0.1"


def app_command(request: Any, session_id: str | None = None) -> list[str]:
    """The command each tab runs: this interpreter's raw-tui, same global options (those of
    `request`, a SessionRequest)."""
    argv = [sys.executable, "-m", "raw_tui"]
    if session_id is not None:
        argv += ["--resume", session_id]
    else:
        argv += ["--no-detach"]
    for option, value in (("--config", request.config), ("--agent", request.agent),
                          ("--model", request.model)):
        if value:
            argv += [option, str(value)]
    argv += ["--cwd", str(request.cwd)]
    return argv


def cmd_serve(request: Any, port: int, session: Callable[[], str | None] = lambda: None) -> int:
    """Listen on 127.0.0.1:PORT first (a port in use is one line, before any host starts),
    then serve tabs attached to the hosted session `session()` names, or (None) each with
    its own."""
    try:
        from textual_serve.server import Server
    except ImportError:
        print("raw-tui: serve needs the textual-serve package (pip install textual-serve)",
              file=sys.stderr)
        return 1
    if not 0 <= port <= 65535:
        print(f"raw-tui: serve: --port {port}: not a port (0-65535)", file=sys.stderr)
        return 2
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((HOST, port))
        listener.listen(128)
    except OSError as err:
        listener.close()
        print(f"raw-tui: serve: {HOST}:{port}: {err.strerror or err}", file=sys.stderr)
        return 1
    try:
        session_id = session()
        reopen = request.continue_ or request.resume
        if session_id is None and reopen:
            print("raw-tui: serve starts a new session per tab; --continue/--resume are "
                  "ignored", file=sys.stderr)
        elif session_id is not None:
            print(f"raw-tui: serving session {session_id} (raw-tui attach {session_id} from a "
                  f"terminal)", file=sys.stderr)
        from .serve_guard import Guard

        guard = Guard(listener.getsockname()[1])
        server = _guarded(Server)(shlex.join(app_command(request, session_id)), guard, listener)
        server.serve()
    finally:
        listener.close()
    return 0


def _guarded(server_class: type) -> type:
    """textual-serve's Server behind the guard, with raw-tui's page and start-up lines."""
    from aiohttp import web

    from .serve_page import TITLE, handle_index

    class GuardedServer(server_class):
        def __init__(self, command: str, guard: Any, listener: socket.socket) -> None:
            super().__init__(command, host=HOST, port=guard.port, title=TITLE)
            self.guard = guard
            self.listener = listener

        def serve(self, debug: bool = False) -> None:
            """textual-serve's serve(), on the socket already listening."""
            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, self.request_exit)
            web.run_app(self.guarded_app(), sock=self.listener, handle_signals=False, loop=loop,
                         print=lambda *args: None)

        async def guarded_app(self) -> web.Application:
            """textual-serve's routes behind the guard, with raw-tui's page at /."""
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

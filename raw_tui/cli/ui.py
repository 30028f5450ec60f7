"""Bare `raw-tui`: the full-screen UI on a session (new, `--continue`, `--resume ID`), in a
session host unless `--no-detach` or `ui.detach: false` keep it in this process; `attach`
(raw_tui/cli/attach.py) opens it on a live host. Only this and `serve` import textual."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..protocol.errors import HOST_FAILED, SESSION_LIVE, SOCKET_DIR_ERROR, UNKNOWN_SESSION
from .common import EXIT_CANCELLED, session_request

UI_PREFS_FILE = "ui.json"  # in the XDG state dir: what the UI remembers (the theme)


def run_ui(args) -> int:
    """Bare `raw-tui`: where this directory's latest session is live, ask whether to attach
    to it; then the UI."""
    request = session_request(args)
    return open_ui(request, _offer_attach(request), given_cwd=args.cwd)


def open_ui(request: Any, attach_socket: Path | None = None, *,
            given_cwd: str | None = None) -> int:
    """Draw the app, open (or resume) the session right after its first frame (the host at
    `attach_socket`, when given), run until it quits; a session chosen in the palette is
    opened next, in a new app. A config error raises ConfigError (exit 2); an unknown
    session exits 1. `given_cwd` is `--cwd` as typed, for the hint printed on leaving."""
    import asyncio

    from msgspec.structs import replace

    from ..ui.typeahead import keep_typeahead  # no textual: keys typed while the UI loads
    # keep Enter as Enter instead of turning into newlines

    with keep_typeahead():
        while True:
            try:
                outcome = asyncio.run(_run_ui(request, attach_socket, given_cwd))
            except Exception as err:
                if getattr(err, "code", None) in (UNKNOWN_SESSION, SESSION_LIVE, HOST_FAILED,
                                                  SOCKET_DIR_ERROR):
                    from ..protocol.termsafe import escape_controls  # the UI stderr: not wrapped

                    print(escape_controls(f"raw-tui: {err.message}", keep_lines=False),
                          file=sys.stderr)
                    return 1
                raise
            if isinstance(outcome, int):
                return outcome
            request, attach_socket = replace(request, resume=outcome, continue_=False), None


async def _run_ui(request: Any, attach_socket: Path | None,
                  given_cwd: str | None) -> "int | str":
    """One app on one session: its exit code, or the id of the saved session to open next."""
    import os

    from .. import lifeline
    from ..cancel import on_stop_signals
    from ..protocol.client import TRANSPORT_ENV, InProcessTransport, with_transport
    from ..paths import state_home
    from ..ui.app import RawApp, Resume

    opened = []

    def opener():  # after the first frame: the engine's imports are not paid before it
        from ..session import open_session

        session, replay = open_session(request, interactive=True)
        opened.append(session)
        return session, replay

    def in_process():
        return InProcessTransport(opener, cwd=str(request.cwd))

    transport = _transport(request, attach_socket, in_process) or in_process()
    app = RawApp(with_transport(os.environ.get(TRANSPORT_ENV), transport),
                 prefs_path=state_home() / UI_PREFS_FILE)
    signalled: list[int] = []
    grace = lifeline.HOSTED_GRACE_S if getattr(transport, "detachable", False) else \
        lifeline.IN_PROCESS_GRACE_S
    lifeline.watch_output(1, grace)  # the terminal (or a tab's pipe) gone: SIGHUP

    def stop() -> None:  # SIGTERM, SIGHUP (an SSH drop), SIGINT from outside: end cleanly
        signalled.append(EXIT_CANCELLED)
        lifeline.exit_later(grace)  # ... or at the latest then, when stuck on a dead terminal
        app.exit(return_code=EXIT_CANCELLED)

    try:
        with on_stop_signals(stop):
            await app.run_async()
    finally:
        await transport.close()
        for session in opened:
            if session.store is not None:
                session.store.close()
    if app.startup_error is not None:
        raise app.startup_error
    if signalled:
        return EXIT_CANCELLED
    if isinstance(app.return_value, Resume):
        return app.return_value.session_id
    if not app.return_code:
        hint = _leaving_hint(transport, opened, given_cwd)
        if hint:
            print(hint)
    return app.return_code or 0


def _leaving_hint(transport: Any, opened: list, cwd: str | None) -> str | None:
    """What to type to come back: `attach` to a session left running in its host, else
    `--continue` / `--resume` of the saved one. None when no session was opened."""
    if opened:
        return resume_hint(opened[-1].session_id, cwd) if opened[-1].saved else None
    if not getattr(transport, "ready", False):
        return None
    session_id = transport.info.session_id
    if getattr(transport, "quit_sent", True):
        # a session left before anything happened in it was not saved (session/keeper.py)
        return resume_hint(session_id, cwd) if _saved(session_id) else None
    from ..program import program

    return (f"raw-tui: session {session_id} is still running (detached). "
            f"Attach to it with: {program()} attach {session_id}")


def _saved(session_id: str) -> bool:
    from ..session.store import HistoryStore

    try:
        store = HistoryStore()
    except Exception:  # the history cannot be read: say how to come back all the same
        return True
    try:
        return store.get(session_id) is not None
    finally:
        store.close()


def _transport(request: Any, attach_to: Path | None, in_process=None) -> Any:
    """The session host's transport, unless `--no-detach` or `ui.detach: false` keep the
    session in this process (then None). `attach` always attaches. A new host that cannot
    start falls back to `in_process()`, unless the config says `ui.detach: true`."""
    if attach_to is None:
        if request.no_detach:  # decided without loading the host's modules
            return None
        from ..host.choose import detach_wanted

        if not detach_wanted(request):
            return None
    from ..host.transport import SocketTransport

    hosted = SocketTransport.for_request(request, socket=attach_to)
    if attach_to is not None or in_process is None:
        return hosted
    from ..host.choose import detach_required
    from ..host.fallback import HostOrInProcess

    return HostOrInProcess(hosted, in_process, required=lambda: detach_required(request))


def _offer_attach(request: Any) -> Path | None:
    """Bare `raw-tui` where this directory's latest session is live: ask whether to attach;
    the host's socket when the answer is yes."""
    if request.no_detach:
        return None
    from ..host.choose import offer_attach
    from ..host.paths import SocketDirError, socket_path

    try:
        session_id = offer_attach(request)
        if session_id is not None:
            return socket_path(session_id)
    except SocketDirError:
        pass  # nothing live can be known; the session's own start says why, in one line
    return None


def resume_hint(session_id: str, cwd: str | None) -> str:
    """What the user types to come back to the session they just left."""
    import shlex

    from ..program import program

    where = f"--cwd {shlex.quote(cwd)} " if cwd else ""
    me = program()
    return (f"raw-tui: session {session_id} saved. Continue it with: {me} {where}--continue"
            f"  (or from anywhere: {me} --resume {session_id})")

"""Which session a UI command attaches to, and what `sessions list` says of live ones.

- `raw-tui attach ID`: that session's host; `raw-tui attach`: the live session of this
  directory updated last.
- Bare `raw-tui` in a directory whose latest session is live asks (on the terminal) whether
  to attach to it instead of starting a new session.
- `--no-detach` or `ui.detach: false` keep the session inside the UI process.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ..protocol.errors import NOT_LIVE, ConfigError, RawError
from ..protocol.termsafe import escape_controls
from . import protocol
from .paths import SocketDirError, live_sessions

if TYPE_CHECKING:
    from ..session.request import SessionRequest


class NotLive(RawError):
    def __init__(self, message: str) -> None:
        super().__init__(NOT_LIVE, message)


def detach_wanted(request: SessionRequest) -> bool:
    """The session runs in a host unless `--no-detach` or the config's `ui.detach: false`."""
    if request.no_detach:
        return False
    return ui_section(request).detach


def detach_required(request: SessionRequest) -> bool:
    """The config says `ui.detach: true` in so many words: a host that cannot start is an
    error, not a session run inside the UI instead."""
    ui = _config_data(request)[0].get("ui")
    return isinstance(ui, dict) and ui.get("detach") is True


def _config_data(request: SessionRequest) -> tuple[dict, str]:
    from ..config import MAX_CONFIG_BYTES, find_config
    from ..jsonstrict import load_file

    path, is_demo = find_config(request.config, request.cwd)
    label = "(built-in demo)" if is_demo else str(path)
    data = load_file(path, max_bytes=MAX_CONFIG_BYTES, label=label)
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", file=label)
    return data, label


def ui_section(request: SessionRequest) -> Any:
    """The config's `ui` section alone (cheap: no tools or hooks are loaded)."""
    from ..config import UiConfig
    from ..jsonstrict import convert

    data, label = _config_data(request)
    return convert(data.get("ui", {}), UiConfig, where=["ui"], file=label)


def latest_live(cwd: str, live: dict[str, protocol.Status] | None = None
                ) -> protocol.Status | None:
    """The live session of `cwd` updated last (by the history store), if any."""
    live = live_sessions() if live is None else live
    here = {sid: status for sid, status in live.items() if status.cwd == cwd}
    if not here:
        return None
    from ..session.store import HistoryStore

    store = HistoryStore()
    try:
        for row in store.list(cwd):
            if row.id in here:
                return here[row.id]
    finally:
        store.close()
    return next(iter(here.values()))


def attach_target(request: SessionRequest, wanted: str | None = None) -> protocol.Status:
    """`raw-tui attach [ID]`: the host of session `wanted`, else the live session of the
    request's directory updated last; or NotLive saying why not."""
    from ..program import program

    live = live_sessions()
    me = program()
    if wanted:
        status = live.get(wanted)
        if status is None:
            raise NotLive(f"session {wanted} is not live ({me} --resume {wanted} reopens "
                          f"it from its history)")
        return status
    status = latest_live(str(request.cwd), live)
    if status is None:
        raise NotLive(f"no live session in {request.cwd}" + _elsewhere(live, me))
    return status


def _elsewhere(live: dict[str, protocol.Status], me: str) -> str:
    """The live sessions of other directories, one a line, and how to attach to one."""
    if not live:
        return f" ({me} sessions list shows them all)"
    from ..protocol.termsafe import escape_controls

    lines = [f"; live elsewhere ({me} attach ID):"]
    for sid, status in sorted(live.items(), key=lambda item: item[1].cwd):
        lines.append(f"  {sid}  {escape_controls(status.cwd, keep_lines=False)}  "
                     f"({status.state})")
    return "\n".join(lines)


def offer_attach(request: SessionRequest, *, stdin=None, out=None) -> str | None:
    """Bare `raw-tui` (no --continue/--resume): when this directory's latest session is live
    and we have a terminal, ask whether to attach to it. The session id, or None."""
    stdin = stdin or sys.stdin
    out = out or sys.stderr
    if request.continue_ or request.resume:
        return None
    if not (stdin.isatty() and out.isatty()):
        return None
    status = latest_live(str(request.cwd))
    if status is None:
        return None
    out.write(escape_controls(f"raw-tui: session {status.session_id} in this directory is "
                              f"live ({status.state}). Attach to it? [Y/n] ", keep_lines=False))
    out.flush()
    answer = stdin.readline().strip().lower()
    return status.session_id if answer in ("", "y", "yes") else None


def live_marks() -> dict[str, str]:
    """Session id -> `live (state)`, for `sessions list` (what a host says, escaped). When
    the socket directory is not safe to look in, no marks and one warning on stderr."""
    try:
        live = live_sessions()
    except SocketDirError as err:
        print(escape_controls(f"raw-tui: warning: {err.message}; live sessions not shown",
                              keep_lines=False), file=sys.stderr)
        return {}
    except OSError:
        return {}
    return {sid: escape_controls(f"live ({status.state})", keep_lines=False)
            for sid, status in live.items()}

"""Which session a UI command attaches to, and what `sessions list` says of live ones.

- `raw-tui attach ID`: that session's host; `raw-tui attach`: the live session of this
  directory updated last.
- Bare `raw-tui` in a directory whose latest session is live asks (on the terminal) whether
  to attach to it instead of starting a new session.
- `--no-detach` or `ui.detach: false` keep the session inside the UI process.
"""

from __future__ import annotations

import sys
from typing import Any

from ..errors import ConfigError, RawError
from . import protocol
from .paths import live_sessions


class NotLive(RawError):
    def __init__(self, message: str) -> None:
        super().__init__("not_live", message)


def detach_wanted(args: Any) -> bool:
    """The session runs in a host unless `--no-detach` or the config's `ui.detach: false`."""
    if getattr(args, "no_detach", False):
        return False
    return ui_section(args).detach


def ui_section(args: Any) -> Any:
    """The config's `ui` section alone (cheap: no tools or hooks are loaded)."""
    from ..config import MAX_CONFIG_BYTES, UiConfig, find_config
    from ..jsonstrict import convert, load_file

    path, is_demo = find_config(getattr(args, "config", None), args.cwd_path)
    label = "(built-in demo)" if is_demo else str(path)
    data = load_file(path, max_bytes=MAX_CONFIG_BYTES, label=label)
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", file=label)
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


def attach_target(args: Any) -> protocol.Status:
    """`raw-tui attach [ID]`: the host to attach to, or NotLive saying why not."""
    from ..program import program

    live = live_sessions()
    wanted = getattr(args, "session_id", None)
    me = program()
    if wanted:
        status = live.get(wanted)
        if status is None:
            raise NotLive(f"session {wanted} is not live ({me} --resume {wanted} reopens "
                          f"it from its history)")
        return status
    status = latest_live(str(args.cwd_path), live)
    if status is None:
        raise NotLive(f"no live session in {args.cwd_path}" + _elsewhere(live, me))
    return status


def _elsewhere(live: dict[str, protocol.Status], me: str) -> str:
    """The live sessions of other directories, one a line, and how to attach to one."""
    if not live:
        return f" ({me} sessions list shows them all)"
    from ..termsafe import escape_controls

    lines = [f"; live elsewhere ({me} attach ID):"]
    for sid, status in sorted(live.items(), key=lambda item: item[1].cwd):
        lines.append(f"  {sid}  {escape_controls(status.cwd, keep_lines=False)}  "
                     f"({status.state})")
    return "\n".join(lines)


def offer_attach(args: Any, *, stdin=None, out=None) -> str | None:
    """Bare `raw-tui` (no --continue/--resume): when this directory's latest session is live
    and we have a terminal, ask whether to attach to it. The session id, or None."""
    stdin = stdin or sys.stdin
    out = out or sys.stderr
    if getattr(args, "continue_", False) or getattr(args, "resume", None):
        return None
    if not (stdin.isatty() and out.isatty()):
        return None
    status = latest_live(str(args.cwd_path))
    if status is None:
        return None
    out.write(f"raw-tui: session {status.session_id} in this directory is live "
              f"({status.state}). Attach to it? [Y/n] ")
    out.flush()
    answer = stdin.readline().strip().lower()
    return status.session_id if answer in ("", "y", "yes") else None


def live_marks() -> dict[str, str]:
    """Session id -> `live (state)`, for `sessions list`."""
    try:
        return {sid: f"live ({status.state})" for sid, status in live_sessions().items()}
    except OSError:
        return {}

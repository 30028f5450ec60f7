"""`raw-tui serve [--port N]`: the UI in browser tabs on 127.0.0.1 (raw_tui/ui/serve.py),
every tab attached to one hosted session (or, with `--no-detach`/`ui.detach: false`, each
with its own)."""

from __future__ import annotations

import sys
from typing import Any

from .common import load, session_request


def add(sub, common) -> None:
    serve = sub.add_parser("serve", parents=[common], help="the UI in a browser on 127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)


def run(args) -> int:
    from ..ui.serve import cmd_serve

    request = session_request(args)
    load(request)  # a broken config fails here (exit 2), not in every tab
    return cmd_serve(request, args.port, session=lambda: _serve_session(request))


def _serve_session(request: Any) -> str | None:
    """The session every tab attaches to, in a host started now (or the live one
    `--continue`/`--resume` name). None with `--no-detach`/`ui.detach: false`."""
    import importlib.util

    from ..host.choose import detach_wanted
    from ..host.transport import locate_or_start

    if importlib.util.find_spec("textual_serve") is None or not detach_wanted(request):
        return None  # cmd_serve says what is missing
    from ..host.choose import detach_required
    from ..host.fallback import fallback_line, host_cannot_start

    try:
        return locate_or_start(request).stem
    except Exception as err:
        if not host_cannot_start(err) or detach_required(request):
            raise
        print(f"raw-tui: {fallback_line(err, 'each tab runs a session of its own')}",
              file=sys.stderr)
        return None

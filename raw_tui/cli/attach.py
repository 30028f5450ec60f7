"""`raw-tui attach [ID]`: the UI on a live session's host (raw_tui/cli/ui.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from .common import EXIT_ERROR, session_request


def add(sub, common) -> None:
    attach = sub.add_parser("attach", parents=[common], help="reattach to a live session")
    attach.add_argument("session_id", metavar="ID", nargs="?",
                        help="default: the live session of this directory updated last")


def run(args) -> int:
    from ..protocol.errors import RawError
    from ..host.choose import attach_target
    from ..host.paths import socket_path
    from .ui import open_ui

    request = session_request(args)
    try:
        status = attach_target(request, args.session_id)
        socket = socket_path(status.session_id)
    except RawError as err:
        print(f"raw-tui: {err.message}", file=sys.stderr)
        return EXIT_ERROR
    return open_ui(session_request(args, cwd=Path(status.cwd)), socket, given_cwd=args.cwd)

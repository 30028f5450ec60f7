"""`raw-tui sessions list | show ID | delete ID | undo ID`: the saved sessions (undo:
raw_tui/cli/sessions_undo.py)."""

from __future__ import annotations

import sys
import time

from ..protocol.termsafe import escape_controls


def add(sub, common) -> None:
    sessions = sub.add_parser("sessions", parents=[common], help="saved sessions")
    sessions_sub = sessions.add_subparsers(dest="sessions_command", required=True,
                                           metavar="list|show|delete|undo")
    sessions_sub.add_parser("list", parents=[common])
    show = sessions_sub.add_parser("show", parents=[common])
    show.add_argument("session_id", metavar="ID")
    show.add_argument("--output", choices=("jsonl", "text"), default="jsonl")
    delete = sessions_sub.add_parser("delete", parents=[common])
    delete.add_argument("session_id", metavar="ID")
    undo = sessions_sub.add_parser("undo", parents=[common],
                                   help="restore the files of a session to before a turn")
    undo.add_argument("session_id", metavar="ID")
    undo.add_argument("--turn", type=int, metavar="N",
                      help="the turn, counted from 1 (default: the latest that changed files)")
    undo.add_argument("--dry-run", action="store_true", help="report, change nothing")
    undo.add_argument("--overwrite-conflicts", action="store_true",
                      help="restore files changed since raw-tui wrote them too")


def run(args) -> int:
    from ..session.store import HistoryStore
    from ..session.textout import TextPrinter

    store = HistoryStore()
    try:
        if args.sessions_command == "list":
            from ..host.choose import live_marks

            live = live_marks()
            for row in store.list():
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.updated_at))
                title = row.title or "(no prompt)"
                cwd = escape_controls(row.cwd, keep_lines=False)  # a newline is no new row
                mark = f"{live[row.id]}  " if row.id in live else ""
                print(f"{row.id}  {mark}{when}  {row.agent}  {row.events} events  {cwd}"
                      f"  {title}")
            return 0
        if args.sessions_command == "undo":
            from .sessions_undo import undo

            return undo(args, store)
        row = store.get(args.session_id)
        if row is None:
            print(f"raw-tui: unknown session {args.session_id}", file=sys.stderr)
            return 1
        if args.sessions_command == "delete":
            store.delete(row.id)
            from ..checkpoints.store import forget

            forget(row.id)
            print(f"deleted {row.id}")
            return 0
        if args.output == "text":
            printer = TextPrinter(sys.stdout)
            for event in store.events(row.id):
                printer(event)
        else:
            for data in store.raw_events(row.id):
                sys.stdout.write(data.decode() + "\n")
        return 0
    finally:
        store.close()

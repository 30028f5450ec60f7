"""`raw-tui sessions list | show ID | delete ID | undo ID`."""

from __future__ import annotations

import sys
import time

from ..termsafe import escape_controls
from .store import HistoryStore
from .textout import TextPrinter


def cmd_sessions(args) -> int:
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
            from ..checkpoints.cli import cmd_undo

            return cmd_undo(args, store)
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

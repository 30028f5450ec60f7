"""`raw-tui sessions undo ID [--turn N] [--dry-run] [--overwrite-conflicts]`
(docs/checkpoints.md): the JSON report `{files: [{path, action}], unobserved_turns}` on
stdout; exit 0 done (or would do), 1 nothing to undo, 3 conflicts left. A session open in
another process (a host, a headless run, a UI) is refused with one line."""

from __future__ import annotations

import json
import sys

from ..checkpoints import service
from ..checkpoints.store import Busy, Store
from ..protocol.termsafe import escape_controls


def _error(message: str) -> int:
    print(escape_controls(f"raw-tui: {message}", keep_lines=False), file=sys.stderr)
    return 1


def undo(args, history) -> int:
    """`history`: the open HistoryStore."""
    row = history.get(args.session_id)
    if row is None:
        return _error(f"unknown session {args.session_id}")
    from ..host.choose import live_marks

    live = live_marks()
    if row.id in live:
        return _error(f"session {row.id} is {live[row.id]} in a host: undo it there "
                      f"(raw-tui attach {row.id}), or end it first")
    store = Store(row.id)
    if not store.dir.exists():
        print(json.dumps({"files": [], "unobserved_turns": [],
                          "message": "nothing to undo: the session changed no files"}))
        return service.EXIT_NOTHING
    try:
        store.hold(exclusive=True)
    except Busy as err:
        return _error(f"{err}: it is busy; undo it there, or end it first")
    try:
        events = history.events(row.id)

        def publish(event) -> None:
            history.append(row.id, event)

        outcome = service.run(store, events, turn=args.turn, dry_run=args.dry_run,
                              overwrite=args.overwrite_conflicts, publish=publish)
    except OSError as err:
        return _error(f"undo failed: {err} (run it again to finish)")
    finally:
        store.release()
    print(json.dumps(outcome.report(), ensure_ascii=False))
    for note in outcome.notes:
        print(escape_controls(f"raw-tui: {note}", keep_lines=False), file=sys.stderr)
    return outcome.code

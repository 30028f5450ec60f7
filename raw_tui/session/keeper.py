"""Writes a session's events to the history store (docs/decisions.md).

A running tool's live output is not stored (its `tool_result` holds what the model read).
A new session in which nothing happened — no turn, no panel action, no switch: only its
start, hook receipts, notices — may be dropped when it closes (`drop_if_empty`), so that launching
raw-tui and quitting without a prompt leaves no "(no prompt)" session behind. While it is
open it is saved as any other (`--resume ID` and `attach` find it).

With `on_unsaved` set (an interactive session: raw_tui/session/unsaved.py), a write that
fails is told to it once, and nothing more is written: the session says it is no longer
saved. Without it the error reaches the bus (a headless run ends on the store's failure).
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from ..protocol import bus as ev
from .store import HistoryError

# what a session holds before anything happened in it
_BEFORE = (ev.SessionStart, ev.TurnState, ev.HookEvent, ev.Notice, ev.HooksReload)


class HistoryKeeper:
    def __init__(self, store: Any, session_id: str, *, create: dict[str, Any] | None) -> None:
        """`create`: the row of a new session, written now (None: resumed, it exists)."""
        self.store = store
        self.session_id = session_id
        self.new = create is not None
        self.happened = False  # something the session would be continued for
        self.on_unsaved: Callable[[HistoryError], None] | None = None
        self.unsaved: HistoryError | None = None  # the write that failed (with on_unsaved)
        if create is not None:
            store.create(session_id, **create)

    def keep(self, event: ev.Event) -> None:
        if isinstance(event, ev.ToolOutput):
            return
        if not self.happened and _happened(event):
            self.happened = True
        if self.unsaved is not None:
            return  # said once: the session is no longer saved
        try:
            self.store.append(self.session_id, event)
        except HistoryError as err:
            if self.on_unsaved is None:
                raise
            self.unsaved = err
            self.on_unsaved(err)

    @property
    def saved(self) -> bool:
        """The session stays in the history (after `drop_if_empty`)."""
        return not self.new or self.happened

    def drop_if_empty(self) -> None:
        """At close: a new session in which nothing happened leaves the history."""
        if not self.saved:
            self.store.delete(self.session_id)


def _happened(event: ev.Event) -> bool:
    """Any event of a turn, and what happens outside one: a panel action's call and panels,
    a switch of the agent or the model."""
    return event.turn_id is not msgspec.UNSET or not isinstance(event, _BEFORE)

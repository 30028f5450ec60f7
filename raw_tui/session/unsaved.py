"""An interactive session (the UI, in process or in a host) whose history can no longer be
written (docs/sessions.md): said once, plainly, as an error notice naming the history's path,
the error and the event that was not saved; the running turn is cancelled and no new turn
starts, so nothing happens in it that the history does not hold. The session stays open to
read; Ctrl+Q ends it. (`raw-tui run` ends with exit 1 instead: raw_tui/session/headless.py.)
"""

from __future__ import annotations

from typing import Any

from ..protocol import bus as ev
from .store import HistoryError

WHY = "the session is no longer saved"


def refusal(err: HistoryError) -> str:
    """Why a new turn does not start."""
    return f"{err.message}: {WHY}, no new turn starts"


def stop_when_unsaved(session: Any) -> None:
    """From the first history write that fails: cancel the turn, say so (once)."""
    keeper = session.keeper
    if keeper is None:
        return

    def unsaved(err: HistoryError) -> None:
        cancelled = session.cancel()
        what = "its turn was cancelled and no new turn starts" if cancelled else \
            "no new turn starts"
        session.bus.publish(ev.Notice(level="error", message=f"{err.message}: {WHY}; {what}"))

    keeper.on_unsaved = unsaved

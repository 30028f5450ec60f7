"""Open a session from the command line's options: new, `--continue` or `--resume ID`."""

from __future__ import annotations

from .. import bus as ev
from ..errors import RawError
from .session import Session
from .store import HistoryStore


class UnknownSession(RawError):
    def __init__(self, message: str) -> None:
        super().__init__("unknown_session", message)


def open_session(args, *, interactive: bool, store: HistoryStore | None = None,
                 bus: ev.Bus | None = None) -> tuple[Session, list[ev.Event]]:
    """(session, history events to replay). Raises ConfigError or UnknownSession."""
    from ..config import load_config

    config = load_config(args.config, cwd=args.cwd_path, model_override=args.model)
    agent = config.agent(args.agent)
    cwd = str(args.cwd_path)
    store = store or HistoryStore()
    session_id = None
    history: list[ev.Event] = []
    resume = getattr(args, "resume", None)
    if getattr(args, "continue_", False) and not resume:
        row = store.latest(cwd)
        if row is None:
            raise UnknownSession(f"no saved session in {cwd}")
        resume = row.id
    if resume:
        row = store.get(resume)
        if row is None:
            raise UnknownSession(f"unknown session {resume}")
        session_id = row.id
        history = store.events(row.id)
    session = Session(config, agent, cwd=cwd, bus=bus, store=store, interactive=interactive,
                      session_id=session_id, history=history)
    return session, history

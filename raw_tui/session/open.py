"""Open the session a `SessionRequest` (session/request.py) names: new, `--continue` or
`--resume ID`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ..protocol import bus as ev
from ..protocol.errors import UNKNOWN_SESSION, RawError
from .request import SessionRequest
from .session import Session
from .store import HistoryStore


class UnknownSession(RawError):
    def __init__(self, message: str) -> None:
        super().__init__(UNKNOWN_SESSION, message)


def switched_agent(config, agent, history: list[ev.Event]):
    """The agent and model a resumed session last switched to (an `agent_model` event), when
    the config still defines them; else `agent`."""
    switch = next((e for e in reversed(history) if isinstance(e, ev.AgentModel)), None)
    if switch is None or switch.agent not in config.agents:
        return agent
    agent = config.agents[switch.agent]
    if switch.model in config.models and switch.model != agent.model_alias:
        agent = dataclasses.replace(agent, model_alias=switch.model,
                                    model=config.models[switch.model])
    return agent


def open_session(request: SessionRequest, *, interactive: bool,
                 store: HistoryStore | None = None,
                 bus: ev.Bus | None = None) -> tuple[Session, list[ev.Event]]:
    """(session, history events to replay). Raises ConfigError or UnknownSession. A session
    resumed from another directory runs in its own (`session.cwd`), with that one's config."""
    from ..config import load_config

    cwd = str(request.cwd)
    own_store = store is None
    store = store or HistoryStore()
    session_id = None
    history: list[ev.Event] = []
    resume = request.resume
    if request.continue_ and not resume:
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
        if row.cwd != cwd and Path(row.cwd).is_dir():
            cwd = row.cwd  # a session resumes in its own directory, with that one's config
    try:
        config = load_config(request.config, cwd=Path(cwd), model_override=request.model)
        agent = config.agent(request.agent)
        if not request.agent and not request.model:
            agent = switched_agent(config, agent, history)
    except BaseException:
        if own_store:
            store.close()
        raise
    session = Session(config, agent, cwd=cwd, bus=bus, store=store, interactive=interactive,
                      session_id=session_id, history=history, keep_empty=False)
    if interactive:  # the UI's session: a history that cannot be written stops its turns
        from .unsaved import stop_when_unsaved

        stop_when_unsaved(session)
    return session, history

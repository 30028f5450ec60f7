"""The hook folders and the config file of an open session, watched: a change applies at the
next turn (session/turn.py takes it when the turn starts)."""

from __future__ import annotations

from pathlib import Path

from ..config import load_config
from ..hooks.watcher import HookWatcher
from .state import SessionState


def start_watcher(session: SessionState) -> HookWatcher | None:
    """The started watcher (None for the built-in demo, which has no config file)."""
    config = session.config
    if config.file is None:
        return None

    def reload():
        fresh = load_config(str(config.file), cwd=Path(session.cwd),
                            client_mcp=config.client_mcp)
        return fresh.agent(session.agent.name).hooks

    watcher = HookWatcher(reload, dispatcher=session.hooks, bus=session.bus,
                          config_file=config.file)
    watcher.start()
    return watcher

"""One panel as the host keeps it: its owner, id, revision and document, and the
`panel_state` frame it publishes (docs/panels.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from ..protocol.bus import PanelState


def full_id(owner: str, panel_id: str) -> str:
    return f"{owner}#{panel_id}"


def describe(record: "Record", declaration: Any, state: Any) -> None:
    """Icon, title and actions for the UI: from the declaration, else from a saved state."""
    if declaration is not None:
        record.icon = declaration.icon
        record.actions = msgspec.to_builtins(list(declaration.actions))
        return
    get = state.get if isinstance(state, dict) else (lambda k, d=None: getattr(state, k, d))
    for key in ("title", "icon", "actions"):
        value = get(key, None)
        if value is not None and value is not msgspec.UNSET:
            setattr(record, key, value)


@dataclass
class Record:
    owner: str
    id: str
    title: str
    placement: str
    context: str
    revision: int = 0
    document: dict | None = None
    touched: int = 0  # the host's update counter at the last accepted update
    icon: str = "panel"
    actions: list | None = None  # the declaration's actions, as JSON
    call_id: str | None = None  # the call whose update made the current state


    @property
    def full(self) -> str:
        return full_id(self.owner, self.id)

    def state(self, turn_id: str | None = None) -> PanelState:
        state = PanelState(panel=self.full, owner=self.owner, revision=self.revision,
                           placement=self.placement, document=self.document,
                           title=self.title, icon=self.icon, actions=self.actions or [])
        if turn_id is not None:
            state.turn_id = turn_id
        if self.call_id is not None:
            state.call_id = self.call_id
        return state

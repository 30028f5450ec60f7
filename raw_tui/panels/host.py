"""The panel host: every panel of a session, its revisions and limits (docs/panels.md).

`PanelHost.open_call(...)` gives one call's `CallPanels`: `ctx.panels` while the handler runs
(`update`, `get`), then `apply_result_blocks`, `confirmation_lines` and `close`. When the
call closes it publishes its `panel_receipt`s, as Raw settles a call: one per panel its
accepted updates touched, at the last revision, then one per rejected update. Accepted updates also
publish a `panel_state` frame (coalesced to one per 100 ms per panel, with a final frame when
the call closes). A rejected update never changes anything stored. Every receipt is at most
MAX_RECEIPT_BYTES as JSON.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable

import msgspec

from ..frozen import freeze
from ..protocol.bus import Bus, PanelState
from ..protocol.errors import PANEL_LIMIT
from .call import CallPanels
from .declaration import PanelDeclaration
from .document import check_size, copy_json, validate_document
from .errors import Invalid, PanelError
from .fields import utf8_clip
from .frames import Frames
from .limits import FRAME_INTERVAL, MAX_PANELS, REMINDER_PANEL_BYTES, REMINDER_TOTAL_BYTES
from .record import Record, describe
from .render import render_text

REMINDER_HEADER = "[Raw panel state]"


class PanelHost:
    """All panels of one session (at most `max_panels`)."""

    def __init__(self, bus: Bus, *, max_panels: int = MAX_PANELS,
                 frame_interval: float = FRAME_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.bus = bus
        self.max_panels = max_panels
        self._records: dict[str, Record] = {}
        self._declared: dict[str, dict[str, PanelDeclaration]] = {}
        self._frames = Frames(bus, frame_interval, clock)
        self._counter = 0
        self._actions: dict[str, str] = {}  # call id -> the panel id a panel action runs on

    # declarations --------------------------------------------------------------------

    def register(self, owner: str, declarations: Iterable[PanelDeclaration]) -> None:
        """Make an owner's declarations known (for `restore`, `reminder` and actions) before
        any call of it; `open_call` registers too."""
        self._declared[owner] = {d.id: d for d in declarations}

    def declare(self, owner: str, declaration: PanelDeclaration) -> None:
        """Add one declaration (an implicit owner's panel, on its first update)."""
        self._declared.setdefault(owner, {})[declaration.id] = declaration

    def declaration(self, owner: str, panel_id: str) -> PanelDeclaration | None:
        return self._declared.get(owner, {}).get(panel_id)

    # calls ---------------------------------------------------------------------------

    def open_call(self, *, owner: str, declarations: list[PanelDeclaration], call_id: str,
                  source: str = "model", turn_id: str | None = None,
                  implicit: bool = False) -> CallPanels:
        """`implicit`: an owner with no declarations (an MCP tool) may write any panel id;
        each gets the default declaration, titled with its id."""
        if not implicit or owner not in self._declared:
            self.register(owner, declarations)
        return CallPanels(self, owner=owner, declarations=declarations, call_id=call_id,
                          source=source, turn_id=turn_id, implicit=implicit,
                          action_panel=self._actions.pop(call_id, None))

    def expect_action(self, call_id: str, panel_id: str) -> None:
        """The call `call_id` runs a panel action on `panel_id` (of the tool it calls): when
        it runs and updates no panel, it still leaves a receipt of that panel (as Raw)."""
        self._actions[call_id] = panel_id

    def forget_action(self, call_id: str) -> None:
        self._actions.pop(call_id, None)

    # state ---------------------------------------------------------------------------

    def panels(self, *, include_closed: bool = False) -> list[PanelState]:
        """The current state of every panel (open ones unless `include_closed`), oldest first."""
        return [r.state() for r in self._records.values()
                if include_closed or r.document is not None]

    def get(self, panel: str) -> tuple[int, Any]:
        """(revision, frozen document or None) of a panel by its full id OWNER#ID."""
        record = self._records.get(panel)
        if record is None:
            return 0, None
        return record.revision, freeze(record.document)

    def restore(self, states: Iterable[PanelState | dict]) -> int:
        """Take back panels from a saved session: given its `panel_state` events in order,
        each panel gets its last state. A state whose document is no longer valid is skipped;
        returns how many panels were restored. Publishes nothing (a UI reads `panels()`)."""
        latest: dict[str, PanelState] = {}
        for state in states:  # a saved history holds many frames per panel: keep the last
            if isinstance(state, dict):
                state = msgspec.convert({k: v for k, v in state.items() if k != "type"},
                                        PanelState)
            latest.pop(state.panel, None)
            latest[state.panel] = state
        restored = 0
        for state in latest.values():
            owner, _, panel_id = state.panel.rpartition("#")
            document = state.document
            if document is not None:
                try:
                    document = validate_document(copy_json(document))
                    check_size(document)
                except (Invalid, PanelError):
                    continue
            declaration = self.declaration(owner, panel_id)
            record = Record(owner=owner, id=panel_id,
                             title=declaration.title if declaration else panel_id,
                             placement=state.placement,
                             context=declaration.context if declaration else "none",
                             revision=state.revision, document=document,
                             call_id=state.call_id if isinstance(state.call_id, str) else None)
            describe(record, declaration, state)
            self._records.pop(record.full, None)
            self._records[record.full] = record
            self._counter += 1
            record.touched = self._counter
            restored += 1
        while len(self._records) > self.max_panels:
            oldest = min(self._records.values(), key=lambda r: r.touched)
            del self._records[oldest.full]
        return restored

    def reminder(self, *, per_panel: int = REMINDER_PANEL_BYTES,
                 total: int = REMINDER_TOTAL_BYTES) -> str | None:
        """The `[Raw panel state]` reminder for the model after a compaction: every open
        panel declared `context: summary`, its `context_summary` (else its plain render)
        cut to `per_panel` bytes, all of it at most `total` bytes. None when there is none."""
        parts: list[str] = []
        used = len(REMINDER_HEADER) + 1
        records = [r for r in self._records.values()
                   if r.context == "summary" and r.document is not None]
        if not records:
            return None
        for n, record in enumerate(records):
            document = record.document
            body = document.get("context_summary") or render_text(document, title=record.title)
            title = document.get("title") or record.title
            part = f"{record.full} \"{title}\" (revision {record.revision})\n" + \
                utf8_clip(body, per_panel)
            size = len(part.encode()) + 2
            if used + size > total:
                parts.append(f"({len(records) - n} more panel(s) not shown)")
                break
            parts.append(part)
            used += size
        return REMINDER_HEADER + "\n" + "\n\n".join(parts)

    # internals -------------------------------------------------------------------------

    def _record(self, full: str) -> Record | None:
        return self._records.get(full)

    def _make_room(self, full: str) -> None:
        """Before a new panel: evict the least recently updated closed panel when full."""
        if full in self._records or len(self._records) < self.max_panels:
            return
        closed = [r for r in self._records.values() if r.document is None]
        if not closed:
            raise PanelError(PANEL_LIMIT, f"{len(self._records)} panels are open, the most a "
                                          f"session holds; close one first")
        oldest = min(closed, key=lambda r: r.touched)
        del self._records[oldest.full]
        self._frames.forget(oldest.full)

    def _store(self, record: Record, document: dict | None, call_id: str) -> None:
        self._counter += 1
        record.call_id = call_id
        record.revision += 1
        record.document = document
        record.touched = self._counter
        self._records[record.full] = record

    def _push_frame(self, record: Record, turn_id: str | None) -> None:
        self._frames.push(record.state(turn_id))

    def _flush(self, keys: set[str]) -> None:
        self._frames.flush(keys)


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
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import msgspec

from ..protocol.bus import Bus, Notice, PanelReceipt, PanelState
from ..protocol.bus import ReceiptError
from ..protocol.errors import (PANEL_CLOSED_CONTEXT, PANEL_INVALID, PANEL_LIMIT, PANEL_NOT_OWNED,
                               PANEL_RATE_LIMITED, PANEL_REVISION_CONFLICT, PANEL_UNDECLARED,
                               PANEL_UNKNOWN)
from ..frozen import freeze
from .declaration import PanelDeclaration, implicit_declaration
from .document import check_size, checked_document, copy_json, validate_document
from .errors import Invalid, PanelError, pointer
from .fields import is_panel_id, utf8_clip
from .frames import Frames
from .limits import (FRAME_INTERVAL, MAX_PANELS, MAX_REJECTED_RECEIPTS_PER_CALL,
                     MAX_RECEIPT_BYTES, MAX_REJECTION_LINES, MAX_UPDATES_PER_CALL,
                     REMINDER_PANEL_BYTES, REMINDER_TOTAL_BYTES)
from .lines import MAX_LINE_MESSAGE, MAX_LINE_PANEL, bounded, confirmation_line, rejection_line
from .patch import apply_patches
from .render import render_text, summarize

OPS = ("replace", "patch", "close")
_BODY_KEYS = frozenset({"type", "panel", "op", "document", "patches", "base_revision"})
REMINDER_HEADER = "[Raw panel state]"


def full_id(owner: str, panel_id: str) -> str:
    return f"{owner}#{panel_id}"


def _describe(record: "_Record", declaration: Any, state: Any) -> None:
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
class _Record:
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


class PanelHost:
    """All panels of one session (at most `max_panels`)."""

    def __init__(self, bus: Bus, *, max_panels: int = MAX_PANELS,
                 frame_interval: float = FRAME_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.bus = bus
        self.max_panels = max_panels
        self._records: dict[str, _Record] = {}
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
                  implicit: bool = False) -> "CallPanels":
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
            record = _Record(owner=owner, id=panel_id,
                             title=declaration.title if declaration else panel_id,
                             placement=state.placement,
                             context=declaration.context if declaration else "none",
                             revision=state.revision, document=document,
                             call_id=state.call_id if isinstance(state.call_id, str) else None)
            _describe(record, declaration, state)
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

    def _record(self, full: str) -> _Record | None:
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

    def _store(self, record: _Record, document: dict | None, call_id: str) -> None:
        self._counter += 1
        record.call_id = call_id
        record.revision += 1
        record.document = document
        record.touched = self._counter
        self._records[record.full] = record

    def _push_frame(self, record: _Record, turn_id: str | None) -> None:
        self._frames.push(record.state(turn_id))

    def _flush(self, keys: set[str]) -> None:
        self._frames.flush(keys)


class CallPanels:
    """One call's panels: `ctx.panels` (update, get) and the result blocks."""

    def __init__(self, host: PanelHost, *, owner: str, declarations: list[PanelDeclaration],
                 call_id: str, source: str, turn_id: str | None, implicit: bool = False,
                 action_panel: str | None = None) -> None:
        self.host = host
        self.action_panel = action_panel  # the panel a panel action ran on
        self.implicit = implicit
        self.owner = owner
        self.call_id = call_id
        self.source = source
        self.turn_id = turn_id
        self.declarations = {d.id: d for d in declarations}
        self.receipts: list[PanelReceipt] = []
        self._counts: dict[str, int] = {}
        self._rejected = 0
        self._touched: set[str] = set()
        self._confirmed: dict[str, None] = {}  # panels the result blocks updated, in order
        self._accepted: dict[str, str] = {}  # full id -> the last accepted op, first touch first
        self._rejections: list[PanelReceipt] = []  # published after the accepted ones
        self._published = False  # a receipt of an accepted update went out
        self._closed = False

    # ctx.panels ----------------------------------------------------------------------

    async def update(self, panel: str, body: dict[str, Any]) -> int:
        """Apply one update; the new revision, or PanelError with the panel code."""
        return self._update(panel, body)

    def get(self, panel: str) -> tuple[int, Any]:
        """(last revision, frozen document); (0, None) before the first replace or once
        closed (the revision stays)."""
        return self.host.get(full_id(self.owner, self._resolve(panel)))

    # the result ----------------------------------------------------------------------

    def apply_result_blocks(self, blocks: list[dict[str, Any]]) -> list[str]:
        """Apply result panel blocks in order; the rejection lines (at most 5)."""
        lines: list[str] = []
        for block in blocks:
            panel = block.get("panel") if isinstance(block, dict) else None
            try:
                self._update(panel, block, via_result=True)
            except PanelError as err:
                if len(lines) < MAX_REJECTION_LINES:
                    label = panel if isinstance(panel, str) and panel else "?"
                    lines.append(rejection_line(label, err.code, err.message))
        return lines

    def confirmation_lines(self) -> list[str]:
        lines = []
        for panel_id in self._confirmed:
            record = self.host._record(full_id(self.owner, panel_id))
            if record is not None:
                lines.append(confirmation_line(panel_id, record.revision,
                                               summarize(record.document)))
        return lines

    def close(self) -> None:
        """The handler returned: later updates get panel_closed_context; final frames go out,
        then one receipt per panel the call updated."""
        if self._closed:
            return
        self._closed = True
        self.host._flush(self._touched)
        if self.action_panel is not None and not self._accepted and not self._published:
            self._unchanged_receipt(self.action_panel)
        self.publish_receipts()

    def publish_receipts(self) -> None:
        """Publish the receipts held so far (close does; a form shown for the whole wait of
        an interaction request publishes its receipt when it is shown)."""
        for full, op in self._accepted.items():
            record = self.host._record(full)
            if record is not None:
                self._receipt(record, op)
                self._published = True
        self._accepted = {}
        for receipt in self._rejections:
            self._publish(receipt)
        self._rejections = []

    # one update ------------------------------------------------------------------------

    def _update(self, panel: Any, body: Any, *, via_result: bool = False) -> int:
        op = body.get("op") if isinstance(body, dict) else None
        label = panel if isinstance(panel, str) else "?"
        try:
            panel_id, record, document = self._check(panel, body)
        except PanelError as err:
            self._receipt_rejected(label, op, err)
            raise
        full = full_id(self.owner, panel_id)
        if record is None:
            declaration = self.declarations[panel_id]
            record = _Record(owner=self.owner, id=panel_id, title=declaration.title,
                             placement=declaration.placement, context=declaration.context)
            _describe(record, declaration, None)
        self.host._store(record, document, self.call_id)
        self._counts[panel_id] = self._counts.get(panel_id, 0) + 1
        self._touched.add(full)
        if via_result:
            self._confirmed.setdefault(panel_id)
        self._accepted[full] = op
        self.host._push_frame(record, self.turn_id)
        return record.revision

    def _check(self, panel: Any, body: Any) -> tuple[str, _Record | None, dict | None]:
        """Every rule, in order; (panel id, its record, the new document) or PanelError."""
        if self._closed:
            raise PanelError(PANEL_CLOSED_CONTEXT,
                             "the call has returned; panels update only while it runs")
        panel_id = self._resolve(panel)
        op, document, patches, base = _read_body(body)
        if self._counts.get(panel_id, 0) >= MAX_UPDATES_PER_CALL:
            raise PanelError(PANEL_RATE_LIMITED, f"at most {MAX_UPDATES_PER_CALL} updates "
                                                 f"to one panel per call")
        full = full_id(self.owner, panel_id)
        record = self.host._record(full)
        current = record.revision if record else 0
        if base is not None and base != current:
            raise PanelError(PANEL_REVISION_CONFLICT,
                             f"base_revision {base} is not the current revision {current}")
        if op != "replace" and (record is None or record.document is None):
            state = "is closed" if record is not None else "has no document"
            raise PanelError(PANEL_UNKNOWN, f"panel {panel_id} {state}; {op} needs a replace "
                                            f"first")
        new = _new_document(op, document, patches, record)
        if record is None:
            self.host._make_room(full)
        return panel_id, record, new

    def _resolve(self, panel: Any) -> str:
        """The panel id this call may write, from `ID` or `OWNER#ID`."""
        if not isinstance(panel, str) or not panel:
            raise PanelError(PANEL_INVALID, "/panel: must be a panel id")
        owner, sep, panel_id = panel.rpartition("#")
        if sep and owner != self.owner:
            raise PanelError(PANEL_NOT_OWNED, f"panel {panel} belongs to {owner}; "
                                              f"{self.owner} may only update its own panels")
        if panel_id not in self.declarations and self.implicit and is_panel_id(panel_id):
            declaration = implicit_declaration(panel_id, self.owner)
            self.declarations[panel_id] = declaration
            self.host.declare(self.owner, declaration)
        if panel_id not in self.declarations:
            raise PanelError(PANEL_UNDECLARED, f"{self.owner} does not declare panel "
                                               f"{panel_id!r}")
        return panel_id

    # receipts ------------------------------------------------------------------------

    def _receipt(self, record: _Record, op: str) -> None:
        document = record.document
        self._publish(PanelReceipt(
            panel=record.id, owner=self.owner,
            title=(document or {}).get("title") or record.title,
            revision=record.revision, summary=summarize(document), op=op, source=self.source))

    def _unchanged_receipt(self, panel_id: str) -> None:
        """The receipt of the panel an action ran on when the call changed no panel: its
        current state, as Raw's `unchangedReceipt`."""
        declaration = self.declarations.get(panel_id)
        record = self.host._record(full_id(self.owner, panel_id))
        document = record.document if record else None
        title = (document or {}).get("title") or (declaration.title if declaration else panel_id)
        self._publish(PanelReceipt(
            panel=panel_id, owner=self.owner, title=title,
            revision=record.revision if record else 0,
            summary=summarize(document) if document is not None else "", op="replace",
            source=self.source))

    def _receipt_rejected(self, panel: str, op: Any, err: PanelError) -> None:
        self._rejected += 1
        if self._rejected > MAX_REJECTED_RECEIPTS_PER_CALL:
            if self._rejected == MAX_REJECTED_RECEIPTS_PER_CALL + 1:
                self.host.bus.publish(Notice(
                    level="warning", message=f"{self.owner}: over {MAX_REJECTED_RECEIPTS_PER_CALL}"
                    " panel updates rejected in one call; the rest are not shown",
                    **({"turn_id": self.turn_id} if self.turn_id else {})))
            return
        owner, _, panel_id = panel.rpartition("#")
        record = None
        title = panel_id
        if panel_id in self.declarations and owner in ("", self.owner):
            record = self.host._record(full_id(self.owner, panel_id))
            title = self.declarations[panel_id].title
        document = record.document if record else None
        hold = self._rejections.append if not self._closed else self._publish  # late: now
        hold(PanelReceipt(
            panel=bounded(panel_id or panel, MAX_LINE_PANEL),
            owner=bounded(owner, MAX_LINE_PANEL) or self.owner,
            title=(document or {}).get("title") or title,
            revision=record.revision if record else 0,
            summary=summarize(document) if document is not None else "",
            op=op if isinstance(op, str) and op in OPS else "?", source=self.source,
            error=ReceiptError(code=err.code, message=bounded(err.message, MAX_LINE_MESSAGE))))

    def _publish(self, receipt: PanelReceipt) -> None:
        if self.turn_id is not None:
            receipt.turn_id = self.turn_id
        receipt = bounded_receipt(receipt)
        self.receipts.append(receipt)
        self.host.bus.publish(receipt)


_encode = msgspec.json.Encoder().encode


def bounded_receipt(receipt: PanelReceipt, limit: int = MAX_RECEIPT_BYTES) -> PanelReceipt:
    """`receipt` at most `limit` bytes as JSON: the summary is cut first, then the title, the
    error's message, the panel and owner (each already short unless a tool sent a huge one)."""
    over = len(_encode(receipt)) - limit
    if over <= 0:
        return receipt
    for name in ("summary", "title", "message", "panel", "owner"):
        holder = receipt.error if name == "message" else receipt
        if holder is None or holder is msgspec.UNSET:
            continue
        value = getattr(holder, name)
        size = len(value.encode("utf-8"))
        keep = max(size - over - 3, 0)  # room for the ellipsis (3 bytes)
        cut = utf8_clip(value, keep) if keep < size else value
        if cut != value:
            setattr(holder, name, cut if keep else "")
        over = len(_encode(receipt)) - limit
        if over <= 0:
            break
    return receipt


def _read_body(body: Any) -> tuple[str, Any, Any, int | None]:
    """`{op, document?, patches?, base_revision?}` (a result block also has `type`, `panel`)."""
    if not isinstance(body, dict):
        raise PanelError(PANEL_INVALID, "/: an update must be an object")
    for key in body:
        if key not in _BODY_KEYS:
            raise PanelError(PANEL_INVALID, f"{pointer([key])}: unknown field")
    if "type" in body and body["type"] != "panel":
        raise PanelError(PANEL_INVALID, '/type: must be "panel"')
    op = body.get("op")
    if op not in OPS:
        raise PanelError(PANEL_INVALID, "/op: must be one of replace, patch, close")
    wanted = {"replace": "document", "patch": "patches", "close": None}[op]
    for key in ("document", "patches"):
        if key == wanted and key not in body:
            raise PanelError(PANEL_INVALID, f"/{key}: required for {op}")
        if key != wanted and key in body:
            raise PanelError(PANEL_INVALID, f"/{key}: not allowed with {op}")
    base = body.get("base_revision")
    if base is not None and (isinstance(base, bool) or not isinstance(base, int) or base < 0):
        raise PanelError(PANEL_INVALID, "/base_revision: must be an integer, at least 0")
    return op, body.get("document"), body.get("patches"), base


def _new_document(op: str, document: Any, patches: Any, record: _Record | None) -> dict | None:
    if op == "close":
        return None
    if op == "replace":
        return checked_document(document)
    try:
        new = apply_patches(record.document, copy_json(patches, ("patches",)))
    except Invalid as err:
        raise err.as_panel_error() from None
    check_size(new)
    return new

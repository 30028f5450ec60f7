"""One call's panels (docs/panels.md): `ctx.panels` while the handler runs (`update`,
`get`), then `apply_result_blocks`, `confirmation_lines` and `close`, which publishes the
call's `panel_receipt`s: one per panel its accepted updates touched, at the last revision,
then one per rejected update."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..protocol.bus import Notice, PanelReceipt, ReceiptError
from ..protocol.errors import (PANEL_CLOSED_CONTEXT, PANEL_INVALID, PANEL_NOT_OWNED,
                               PANEL_RATE_LIMITED, PANEL_REVISION_CONFLICT, PANEL_UNDECLARED,
                               PANEL_UNKNOWN)
from .body import OPS, new_document, read_body
from .declaration import PanelDeclaration, implicit_declaration
from .errors import PanelError
from .fields import is_panel_id
from .limits import MAX_REJECTED_RECEIPTS_PER_CALL, MAX_REJECTION_LINES, MAX_UPDATES_PER_CALL
from .lines import MAX_LINE_MESSAGE, MAX_LINE_PANEL, bounded, confirmation_line, rejection_line
from .receipts import bounded_receipt
from .record import Record, describe, full_id
from .render import summarize

if TYPE_CHECKING:
    from .host import PanelHost


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
            record = Record(owner=self.owner, id=panel_id, title=declaration.title,
                             placement=declaration.placement, context=declaration.context)
            describe(record, declaration, None)
        self.host._store(record, document, self.call_id)
        self._counts[panel_id] = self._counts.get(panel_id, 0) + 1
        self._touched.add(full)
        if via_result:
            self._confirmed.setdefault(panel_id)
        self._accepted[full] = op
        self.host._push_frame(record, self.turn_id)
        return record.revision

    def _check(self, panel: Any, body: Any) -> tuple[str, Record | None, dict | None]:
        """Every rule, in order; (panel id, its record, the new document) or PanelError."""
        if self._closed:
            raise PanelError(PANEL_CLOSED_CONTEXT,
                             "the call has returned; panels update only while it runs")
        panel_id = self._resolve(panel)
        op, document, patches, base = read_body(body)
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
        new = new_document(op, document, patches, record)
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

    def _receipt(self, record: Record, op: str) -> None:
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

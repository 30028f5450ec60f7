"""One panel update's body, read and checked: `{op, document?, patches?, base_revision?}`
(a result block also has `type`, `panel`), and the document it makes (docs/panels.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..protocol.errors import PANEL_INVALID
from .document import check_size, checked_document, copy_json
from .errors import Invalid, PanelError, pointer
from .patch import apply_patches

if TYPE_CHECKING:
    from .record import Record

OPS = ("replace", "patch", "close")
_BODY_KEYS = frozenset({"type", "panel", "op", "document", "patches", "base_revision"})


def read_body(body: Any) -> tuple[str, Any, Any, int | None]:
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


def new_document(op: str, document: Any, patches: Any, record: Record | None) -> dict | None:
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

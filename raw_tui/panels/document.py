"""A panel document: top-level fields, its blocks, and its size (docs/panels.md).

    {title?, subtitle?, summary?, context_summary?, progress?: {done, total},
     status?: idle|active|done|failed, blocks?: [block, ...]}
"""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from ..protocol.errors import PANEL_TOO_LARGE
from .blocks import validate_block
from .errors import Invalid, PanelError
from .fields import At, array, choice, integer, obj, text
from .limits import (MAX_BLOCKS, MAX_CONTEXT_SUMMARY_BYTES, MAX_DOCUMENT_BYTES, MAX_SUBTITLE,
                     MAX_SUMMARY, MAX_TITLE)

STATUSES = ("idle", "active", "done", "failed")
_PROGRESS = frozenset({"done", "total"})

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _title(value: Any, at: At) -> None:
    text(value, at, max_chars=MAX_TITLE)


def _subtitle(value: Any, at: At) -> None:
    text(value, at, max_chars=MAX_SUBTITLE)


def _summary(value: Any, at: At) -> None:
    text(value, at, max_chars=MAX_SUMMARY)


def _context_summary(value: Any, at: At) -> None:
    text(value, at, max_bytes=MAX_CONTEXT_SUMMARY_BYTES)


def _progress(value: Any, at: At) -> None:
    obj(value, at, _PROGRESS, ("done", "total"))
    done = integer(value["done"], at + ("done",), minimum=0)
    total = integer(value["total"], at + ("total",), minimum=0)
    if done > total:
        raise Invalid(at + ("done",), "must not be more than total")


def _status(value: Any, at: At) -> None:
    choice(value, at, STATUSES)


def _blocks(value: Any, at: At) -> None:
    blocks = array(value, at, max_items=MAX_BLOCKS, what="blocks")
    seen: set[str] = set()
    for i, block in enumerate(blocks):
        validate_block(block, at + (i,))
        if block["id"] in seen:
            raise Invalid(at + (i, "id"), f"duplicate block id {block['id']!r}")
        seen.add(block["id"])


# The top-level fields and their checks; `set` patches use the same table.
FIELDS: dict[str, Callable[[Any, At], None]] = {
    "title": _title,
    "subtitle": _subtitle,
    "summary": _summary,
    "context_summary": _context_summary,
    "progress": _progress,
    "status": _status,
    "blocks": _blocks,
}
_FIELD_NAMES = frozenset(FIELDS)


def validate_document(document: Any, at: At = ()) -> dict:
    """Every rule of a document except its size (see `check_size`)."""
    obj(document, at, _FIELD_NAMES)
    for key, value in document.items():
        FIELDS[key](value, at + (key,))
    return document


def copy_json(value: Any, at: At = ()) -> Any:
    """A deep copy through JSON: what the tool sent, detached from the tool's own objects.
    Values JSON cannot hold raise `Invalid`."""
    try:
        return _decode(_encode(value))
    except RecursionError:  # a cycle, or nesting deeper than any document may be
        raise Invalid(at, "not a JSON value (nested too deeply, or it contains itself)") from None
    except (TypeError, ValueError, UnicodeError, OverflowError, msgspec.MsgspecError) as err:
        raise Invalid(at, f"not a JSON value ({err})") from None


def encoded_size(document: dict) -> int:
    return len(_encode(document))


def check_size(document: dict) -> None:
    size = encoded_size(document)
    if size > MAX_DOCUMENT_BYTES:
        raise PanelError(PANEL_TOO_LARGE,
                         f"the document is {size} bytes as JSON; the limit is "
                         f"{MAX_DOCUMENT_BYTES}")


def checked_document(value: Any) -> dict:
    """A document sent with `replace`: copied, validated, size-checked. Raises PanelError."""
    try:
        document = validate_document(copy_json(value))
    except Invalid as err:
        raise err.as_panel_error() from None
    check_size(document)
    return document


def is_valid(document: Any) -> bool:
    """The whole contract, for tests and assertions: valid and within the size limit."""
    try:
        validate_document(document)
        check_size(document)
    except (Invalid, PanelError):
        return False
    return True


__all__ = ["FIELDS", "STATUSES", "validate_document", "checked_document", "check_size",
           "copy_json", "encoded_size", "is_valid"]

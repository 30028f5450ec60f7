"""A `panel_receipt` kept to MAX_RECEIPT_BYTES as JSON (docs/panels.md)."""

from __future__ import annotations

import msgspec

from ..protocol.bus import PanelReceipt
from .fields import utf8_clip
from .limits import MAX_RECEIPT_BYTES

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

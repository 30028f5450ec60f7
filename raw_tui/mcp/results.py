"""An MCP `CallToolResult` (its wire form, a dict) → a raw-tui tool result (docs/mcp.md).

- `structuredContent` → a json block, first;
- `text` → a text block, dropped when it is the same JSON as `structuredContent`;
- `image` (`image/png`, `image/jpeg`, strict base64) → `{type: image, mimeType, data}`;
- anything else (audio, resource links, embedded resources) → `unsupported_content`;
- `isError` → `mcp_error`, the server's content kept;
- more than 16 MiB decoded → `result_too_large`;
- `_meta["raw/panel"]` (one update or an array) → panel blocks after the content.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import msgspec

from ..protocol.errors import MCP_CALL_ERROR, MCP_ERROR, RESULT_TOO_LARGE, UNSUPPORTED_CONTENT
from ..tools.result import ToolResult, error_result, text_block

MAX_RESULT_BYTES = 16 * 1024 * 1024
IMAGE_TYPES = ("image/png", "image/jpeg")
PANEL_META_KEY = "raw/panel"



class McpFailure(Exception):
    """A connection or call failure whose text names only the server (never a URL, a header
    or an environment value)."""

    def __init__(self, message: str, *, code: str = MCP_CALL_ERROR, timed_out: bool = False):
        super().__init__(message)
        self.code, self.message, self.timed_out = code, message, timed_out


def map_result(server: str, wire: dict[str, Any]) -> ToolResult:
    """The tool result for one MCP result."""
    blocks = wire.get("content") or []
    structured = wire.get("structuredContent")
    size = _size(wire, blocks, structured)
    if size > MAX_RESULT_BYTES:
        return error_result(RESULT_TOO_LARGE, f"MCP result from {server} too large: {size} bytes, "
                                              f"over {MAX_RESULT_BYTES}")
    content: list[dict[str, Any]] = []
    if structured is not None:
        content.append({"type": "json", "value": structured})
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            if structured is not None and _same_json(block["text"], structured):
                continue
            content.append(text_block(block["text"]))
        elif kind == "image" and _image_ok(block):
            content.append({"type": "image", "mimeType": block["mimeType"],
                            "data": block["data"]})
        else:
            return error_result(UNSUPPORTED_CONTENT,
                                f"unsupported MCP content: {_describe(kind, block)}")
    content.extend(panel_blocks(wire.get("_meta")))
    if wire.get("isError") is True:
        return ToolResult(isError=True, code=MCP_ERROR, content=content)
    return ToolResult(content=content)


def panel_blocks(meta: Any) -> list[dict[str, Any]]:
    """`_meta["raw/panel"]` as panel blocks; other `_meta` keys are ignored. An entry that is
    not an object becomes a bare panel block (which the panel host rejects)."""
    if not isinstance(meta, dict) or PANEL_META_KEY not in meta:
        return []
    updates = meta[PANEL_META_KEY]
    if not isinstance(updates, list):
        updates = [updates]
    return [{**entry, "type": "panel"} if isinstance(entry, dict) else {"type": "panel"}
            for entry in updates]


def _same_json(text: str, structured: Any) -> bool:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return _canonical(value) == _canonical(structured)


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def _image_ok(block: dict[str, Any]) -> bool:
    """A PNG or JPEG whose base64 survives a strict round trip."""
    data = block.get("data")
    if block.get("mimeType") not in IMAGE_TYPES or not isinstance(data, str):
        return False
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return base64.b64encode(raw).decode() == data


def _describe(kind: Any, block: Any) -> str:
    if kind == "image" and isinstance(block, dict):
        return f"image ({block.get('mimeType')})"
    return kind if isinstance(kind, str) else "a block without a type"


def _size(wire: dict[str, Any], blocks: list[Any], structured: Any) -> int:
    """Decoded bytes: text, image bytes, structured content and metadata."""
    size = 0
    for block in blocks:
        if not isinstance(block, dict):
            continue
        for key in ("text", "data", "blob"):
            value = block.get(key)
            if isinstance(value, str):
                size += len(value) * 3 // 4 if key != "text" else len(value.encode("utf-8", "replace"))
    for extra in (structured, wire.get("_meta")):
        if extra is not None:
            size += len(msgspec.json.encode(extra))
    return size

"""Tool results: `{isError, code?, content: [...], truncated?}` (docs/gate.md)."""

from __future__ import annotations

from typing import Any

import msgspec

from ..jsonstrict import without_lone_surrogates

RESULT_KEYS = frozenset({"isError", "code", "content", "truncated"})


class ToolResult(msgspec.Struct, omit_defaults=True):
    isError: bool = False
    content: list[Any] = msgspec.field(default_factory=list)
    code: str | None = None
    truncated: bool = False

    def text(self) -> str:
        return content_text(self.content)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON wherever one is written (`call`'s report, hook payloads, ...):
        `{isError, code?, content, truncated?}`, `isError` always present, `false` included."""
        data = msgspec.to_builtins(self)
        data.pop("isError", None)
        return {"isError": self.isError, **data}


def content_text(content: list[Any]) -> str:
    """The text a person or a model reads: text blocks as they are, json blocks encoded."""
    parts = []
    for block in content:
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "json":
            parts.append(msgspec.json.encode(block.get("value")).decode())
    return "\n".join(parts)


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def error_result(code: str, message: str) -> ToolResult:
    """An error result. A message quoting text that is not valid Unicode (a file name read
    with surrogateescape) gets U+FFFD for each lone surrogate, so it can be stored and sent."""
    if not message.isascii():
        message = without_lone_surrogates(message)
    return ToolResult(isError=True, code=code, content=[text_block(message)])


def is_full_result(value: Any) -> bool:
    """A dict is a full result when it has a `content` list and only result keys."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("content"), list)
        and set(value) <= RESULT_KEYS
    )


def normalize(value: Any) -> ToolResult:
    """What a handler returned, as a ToolResult.

    `str` → one text block; a full result (a ToolResult or a dict with `content` and only
    result keys) → as it is; any other dict or list → one json block; None → no content.
    Raises TypeError when the value is none of these or not JSON-serializable.
    """
    if isinstance(value, ToolResult):
        result = value
    elif value is None:
        result = ToolResult()
    elif isinstance(value, str):
        result = ToolResult(content=[text_block(value)])
    elif is_full_result(value):
        result = msgspec.convert(value, ToolResult)
    elif isinstance(value, (dict, list, int, float, bool)):
        result = ToolResult(content=[{"type": "json", "value": value}])
    else:
        raise TypeError(f"a handler returned {type(value).__name__}, not a result")
    for i, block in enumerate(result.content):
        problem = _block_problem(block)
        if problem:
            raise TypeError(f"result content[{i}] {problem}")
    msgspec.json.encode(result)  # raises TypeError when something is not JSON
    return result


def _block_problem(block: Any) -> str | None:
    """Blocks of the catalog only: `{type: text, text: str}`, `{type: json, value}`, and panel
    blocks (checked when they are applied). Anything else would pass the output cap."""
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        return "is not a block with a type"
    kind = block["type"]
    if kind == "text":
        return None if isinstance(block.get("text"), str) else "is a text block without a text string"
    if kind == "json":
        return None if "value" in block else "is a json block without a value"
    if kind == "panel":
        return None
    if kind == "image":  # from an MCP server (docs/mcp.md)
        ok = block.get("mimeType") in ("image/png", "image/jpeg") and \
            isinstance(block.get("data"), str)
        return None if ok else "is an image block without a PNG/JPEG mimeType and data"
    return f"has type {kind!r}: blocks are text, json, image or panel"


def split_panel_blocks(result: ToolResult) -> tuple[ToolResult, list[dict[str, Any]]]:
    """Take panel blocks out of a result: (result without them, the panel blocks in order)."""
    panels = [b for b in result.content if b.get("type") == "panel"]
    if not panels:
        return result, []
    rest = [b for b in result.content if b.get("type") != "panel"]
    return msgspec.structs.replace(result, content=rest), panels


def cap_output(result: ToolResult, max_bytes: int) -> ToolResult:
    """Cap the text of the result to `max_bytes` (UTF-8), setting `truncated`."""
    budget = max_bytes
    out: list[Any] = []
    truncated = False
    for block in result.content:
        if block.get("type") == "text":
            data = block.get("text", "").encode()
        elif block.get("type") == "json":
            data = msgspec.json.encode(block.get("value"))
        else:
            out.append(block)
            continue
        if truncated:
            continue
        if len(data) <= budget:
            out.append(block)
            budget -= len(data)
            continue
        truncated = True
        cut = data[:budget].decode("utf-8", errors="ignore")
        out.append(text_block(cut))
        budget = 0
    if not truncated:
        return result
    return msgspec.structs.replace(result, content=out, truncated=True)

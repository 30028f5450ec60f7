"""Replies in the Anthropic Messages streaming wire format.

`event: NAME\ndata: {json}\n\n`: message_start, content_block_start (text | tool_use),
ping, content_block_delta (text_delta | input_json_delta), content_block_stop,
message_delta (stop_reason, usage), message_stop; `error` events mid-stream.
"""

from __future__ import annotations

import json
from typing import Any

from .http_server import Reply

MODEL = "claude-test"

Call = tuple[str, str, str]  # (id, name, input as JSON text)


def event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def message_start(input_tokens: int) -> bytes:
    return event("message_start", {"type": "message_start", "message": {
        "id": "msg_test", "type": "message", "role": "assistant", "model": MODEL, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1}}})


def text_block(index: int, text: str, size: int = 3) -> list[bytes]:
    out = [event("content_block_start", {"type": "content_block_start", "index": index,
                                         "content_block": {"type": "text", "text": ""}})]
    for i in range(0, len(text), size):
        out.append(event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "text_delta", "text": text[i : i + size]}}))
    out.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
    return out


def tool_block(index: int, call: Call, size: int) -> list[bytes]:
    call_id, name, arguments = call
    out = [event("content_block_start", {"type": "content_block_start", "index": index,
                                         "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}})]
    out.append(event("content_block_delta", {"type": "content_block_delta", "index": index,
                                             "delta": {"type": "input_json_delta", "partial_json": ""}}))
    for i in range(0, len(arguments), size):
        out.append(event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "input_json_delta", "partial_json": arguments[i : i + size]}}))
    out.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
    return out


def ending(stop_reason: str, output_tokens: int) -> list[bytes]:
    return [
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                "usage": {"output_tokens": output_tokens}}),
        event("message_stop", {"type": "message_stop"}),
    ]


PING = event("ping", {"type": "ping"})


def text_reply(text: str, *, usage: tuple[int, int] = (12, 5), truncated: bool = False,
               **kw: Any) -> Reply:
    """A text answer; `truncated` ends it as a reply cut by max_tokens."""
    stop = "max_tokens" if truncated else "end_turn"
    chunks = [message_start(usage[0]), PING, *text_block(0, text), *ending(stop, usage[1])]
    return Reply(chunks=chunks, **kw)


def tool_use_reply(calls: list[Call], *, text: str = "", fragment: int = 4,
                   usage: tuple[int, int] = (40, 18), **kw: Any) -> Reply:
    chunks = [message_start(usage[0]), PING]
    index = 0
    if text:
        chunks += text_block(0, text)
        index = 1
    for offset, call in enumerate(calls):
        chunks += tool_block(index + offset, call, fragment)
    chunks += ending("tool_use", usage[1])
    return Reply(chunks=chunks, **kw)


def error_reply(status: int, type_: str, message: str) -> Reply:
    body = {"type": "error", "error": {"type": type_, "message": message}}
    return Reply(status=status, content_type="application/json", body=json.dumps(body).encode())


def stream_error_reply(type_: str = "overloaded_error", message: str = "Overloaded") -> Reply:
    chunks = [message_start(10), *text_block(0, "Hel")[:2],
              event("error", {"type": "error", "error": {"type": type_, "message": message}})]
    return Reply(chunks=chunks)

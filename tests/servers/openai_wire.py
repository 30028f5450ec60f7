"""Replies in the OpenAI Chat Completions streaming wire format.

`data: {chunk}\n\n` events of `chat.completion.chunk` objects, a usage chunk with empty
`choices` (stream_options.include_usage), then `data: [DONE]`. Tool calls arrive as
fragments keyed by `index`: the first with id, type and name, then pieces of arguments.
"""

from __future__ import annotations

import json
from typing import Any

from .http_server import Reply

DONE = b"data: [DONE]\n\n"
MODEL = "test-model"

# (id, name, arguments as the JSON text the model produced)
Call = tuple[str, str, str]


def sse(data: Any) -> bytes:
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def chunk(delta: dict[str, Any] | None = None, finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "system_fingerprint": "fp_test",
        "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish_reason}],
    }


def usage_chunk(prompt: int, completion: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def text_pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def text_chunks(text: str) -> list[bytes]:
    return [sse(chunk({"content": piece})) for piece in text_pieces(text)]


def ending(finish_reason: str, usage: tuple[int, int] | None) -> list[bytes]:
    out = [sse(chunk({}, finish_reason))]
    if usage:
        out.append(sse(usage_chunk(*usage)))
    out.append(DONE)
    return out


def text_reply(text: str, *, usage: tuple[int, int] | None = (12, 5), truncated: bool = False,
               **kw: Any) -> Reply:
    """A text answer; `truncated` ends it as a reply cut by max_tokens (`length`)."""
    chunks = [sse(chunk({"role": "assistant", "content": ""}))] + text_chunks(text)
    return Reply(chunks=chunks + ending("length" if truncated else "stop", usage), **kw)


def call_fragments(index: int, call: Call, size: int) -> list[dict[str, Any]]:
    call_id, name, arguments = call
    first = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
    rest = [{"index": index, "function": {"arguments": arguments[i : i + size]}} for i in range(0, len(arguments), size)]
    return [first, *rest]


def tool_calls_reply(
    calls: list[Call],
    *,
    text: str = "",
    fragment: int = 4,
    interleave: bool = False,
    usage: tuple[int, int] | None = (40, 18),
    **kw: Any,
) -> Reply:
    chunks = [sse(chunk({"role": "assistant", "content": None if not text else ""}))] + text_chunks(text)
    per_call = [call_fragments(i, call, fragment) for i, call in enumerate(calls)]
    if interleave:
        order = [frag for group in zip_longest_all(per_call) for frag in group]
    else:
        order = [frag for frags in per_call for frag in frags]
    chunks += [sse(chunk({"tool_calls": [frag]})) for frag in order]
    return Reply(chunks=chunks + ending("tool_calls", usage), **kw)


def zip_longest_all(groups: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    longest = max((len(g) for g in groups), default=0)
    return [[g[i] for g in groups if i < len(g)] for i in range(longest)]


def error_reply(status: int, message: str, type_: str = "invalid_request_error", code: str | None = None) -> Reply:
    body = {"error": {"message": message, "type": type_, "param": None, "code": code}}
    return Reply(status=status, content_type="application/json", body=json.dumps(body).encode())


def stream_error_reply(message: str) -> Reply:
    """A 200 stream that reports an error object mid-way (vLLM, proxies)."""
    chunks = [sse(chunk({"role": "assistant", "content": ""})), *text_chunks("Hel"),
              sse({"error": {"message": message, "type": "server_error", "code": 500}})]
    return Reply(chunks=chunks)

"""`openai-chat-completions`: streaming Chat Completions with tool calls.

Served by OpenAI, Ollama, vLLM, llama.cpp and LM Studio. We speak the wire format with
`httpx` (already a dependency) rather than the `openai` SDK: what we need is one POST and
an event stream — about 30 lines of SSE parsing (`sse.py`) and 60 of chunk handling here —
while the SDK would add a large dependency (and its pydantic models) to convert back into
our own types anyway, with its own retries, timeouts and exception classes to translate.

Wire details handled here:
- `stream: true` with `stream_options.include_usage` (the usage arrives in a last chunk
  whose `choices` is empty).
- Tool calls arrive as fragments keyed by `index` (the first carries `id` and the name, the
  rest pieces of the arguments string); they are reassembled and yielded when the stream
  ends, arguments parsed then (malformed → `raw_arguments`).
- An `error` object inside the stream (vLLM, proxies) is a ModelError.
- The stream ends at `data: [DONE]`; a stream that closes without it counts as complete only
  if a `finish_reason` came.
"""

from __future__ import annotations

import secrets
from typing import Any, AsyncIterator

import msgspec

from .base import (
    METHOD_OPENAI,
    STOP_END_TURN,
    STOP_MAX_TOKENS,
    STOP_TOOL_USE,
    Done,
    Message,
    ModelError,
    StreamItem,
    TextDelta,
    ToolCallRequest,
    ToolDefinition,
    Usage,
    one_line,
    tool_call_from_json,
)
from .http_stream import HttpModel, decode_json, guarded, open_sse, resolve_api_key
from .sse import SSEEvent

DEFAULT_BASE_URL = "https://api.openai.com/v1"

STOP_REASONS = {
    "stop": STOP_END_TURN,
    "tool_calls": STOP_TOOL_USE,
    "function_call": STOP_TOOL_USE,
    "length": STOP_MAX_TOKENS,
}


class OpenAIChatModel(HttpModel):
    name = METHOD_OPENAI
    default_base_url = DEFAULT_BASE_URL

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def request_body(
        self, messages: list[Message], tools: list[ToolDefinition], system: str | None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": to_openai_messages(messages, system),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = [to_openai_tool(tool) for tool in tools]
            if self.tool_choice:
                body["tool_choice"] = self.tool_choice
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        return body

    async def stream(
        self,
        messages: list[Message],
        tools: list[ToolDefinition],
        *,
        system: str | None = None,
    ) -> AsyncIterator[StreamItem]:
        headers = {}
        key = resolve_api_key(self.name, self._api_key, self.api_key_env)
        if key:
            headers["authorization"] = f"Bearer {key}"
        body = self.request_body(messages, tools, system)
        async with open_sse(self.name, self.url, headers, body, self.request_timeout_ms) as events:
            async for item in self.read_events(events):
                yield item

    async def read_events(self, events: AsyncIterator[SSEEvent]) -> AsyncIterator[StreamItem]:
        """The items one response's events make (all that follows the HTTP exchange)."""
        state = ChunkState()
        async for event in events:
            if event.data.strip() == "[DONE]":
                state.done = True
                break
            for item in guarded(self.name, state.take, self.name,
                                decode_json(self.name, event.data)):
                yield item
        if not (state.done or state.finish_reason):
            raise ModelError(f"{self.name}: the stream ended before the response was complete", kind="dropped")
        for item in guarded(self.name, state.finish):
            yield item


class ToolCallParts:
    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []


class ChunkState:
    """What the chunks of one response have said so far."""

    def __init__(self) -> None:
        self.calls: dict[int, ToolCallParts] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.done = False

    def take(self, name: str, chunk: Any) -> list[StreamItem]:
        if not isinstance(chunk, dict):
            raise ModelError(f"{name}: unexpected data in stream: {one_line(repr(chunk), 120)}")
        if chunk.get("error"):
            err = chunk["error"]
            message = err.get("message") if isinstance(err, dict) else err
            raise ModelError(f"{name}: error in stream: {message}")
        self.take_usage(chunk.get("usage"))
        items: list[StreamItem] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if isinstance(content, str) and content:
                items.append(TextDelta(content))
            for fragment in delta.get("tool_calls") or []:
                self.take_tool_fragment(fragment)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        return items

    def take_usage(self, usage: Any) -> None:
        if isinstance(usage, dict):
            self.usage = Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            )

    def take_tool_fragment(self, fragment: Any) -> None:
        if not isinstance(fragment, dict):
            return
        index = fragment.get("index")
        if not isinstance(index, int):
            # Servers that omit `index` send each call whole, or continue the last one.
            new = fragment.get("id") and all(p.id != fragment["id"] for p in self.calls.values())
            index = len(self.calls) if new or not self.calls else max(self.calls)
        parts = self.calls.setdefault(index, ToolCallParts())
        if fragment.get("id"):
            parts.id = fragment["id"]
        function = fragment.get("function") or {}
        if function.get("name") and not parts.name:
            parts.name = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            parts.arguments.append(arguments)
        elif isinstance(arguments, dict):  # a few servers send the object itself
            parts.arguments.append(msgspec.json.encode(arguments).decode())

    def finish(self) -> list[StreamItem]:
        items: list[StreamItem] = []
        for index in sorted(self.calls):
            parts = self.calls[index]
            call_id = parts.id or f"call_{secrets.token_hex(6)}"
            items.append(tool_call_from_json(call_id, parts.name, "".join(parts.arguments)))
        if self.usage is not None:
            items.append(self.usage)
        reason = self.finish_reason or ("tool_calls" if self.calls else "stop")
        items.append(Done(STOP_REASONS.get(reason, reason)))
        return items


# Conversion to the wire -------------------------------------------------------------------

def to_openai_messages(messages: list[Message], system: str | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for message in messages:
        out.append(to_openai_message(message))
    return out


def to_openai_message(message: Message) -> dict[str, Any]:
    if message.role == "assistant":
        entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
        if message.tool_calls:
            entry["tool_calls"] = [to_openai_tool_call(call) for call in message.tool_calls]
        elif not message.text:
            entry["content"] = ""
        return entry
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.text}
    return {"role": message.role, "content": message.text}


def to_openai_tool_call(call: ToolCallRequest) -> dict[str, Any]:
    # The parsed arguments go back ({} when they were malformed): some servers reject
    # history whose arguments are not JSON; the tool result tells the model what went wrong.
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": msgspec.json.encode(call.arguments).decode()},
    }


def to_openai_tool(tool: ToolDefinition) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.input_schema},
    }

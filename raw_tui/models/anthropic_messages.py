"""`anthropic-messages`: the streaming Messages API with `tool_use` blocks.

Spoken with `httpx` for the same reasons as `openai_chat.py` (one POST, one event stream,
no SDK to translate from). Headers `x-api-key` and `anthropic-version: 2023-06-01`.

Events: `message_start` (input usage), `content_block_start` (`text` or `tool_use` with id
and name), `content_block_delta` (`text_delta` → TextDelta at once; `input_json_delta` →
pieces of the tool input), `content_block_stop` (a tool call is complete), `message_delta`
(stop_reason, output usage), `message_stop` (the end), `ping`, `error` (a ModelError).
Other block kinds (thinking, ...) are ignored.

Conversation: the system prompt is the top-level `system`; tool results are `tool_result`
blocks in a user message; consecutive user-side entries merge into one message, as the API
wants all results of one response together.
"""

from __future__ import annotations

from typing import Any, AsyncIterator

import msgspec

from .base import (
    METHOD_ANTHROPIC,
    Done,
    Message,
    ModelError,
    StreamItem,
    TextDelta,
    ToolDefinition,
    Usage,
    tool_call_from_json,
)
from .http_stream import HttpModel, decode_json, guarded, open_sse, resolve_api_key
from .sse import SSEEvent

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096


# the model entry's `tool_choice` in Anthropic's words
ANTHROPIC_TOOL_CHOICE = {"auto": "auto", "required": "any", "none": "none"}


class AnthropicMessagesModel(HttpModel):
    name = METHOD_ANTHROPIC
    default_base_url = DEFAULT_BASE_URL
    default_max_tokens = DEFAULT_MAX_TOKENS

    @property
    def url(self) -> str:
        # base_url is the API root (https://api.anthropic.com); one ending in /v1 works too.
        root = self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url
        return f"{root}/v1/messages"

    def request_body(
        self, messages: list[Message], tools: list[ToolDefinition], system: str | None
    ) -> dict[str, Any]:
        system_text, wire_messages = to_anthropic_messages(messages, system)
        body: dict[str, Any] = {
            "model": self.model_id,
            "max_tokens": self.max_tokens,
            "messages": wire_messages,
            "stream": True,
        }
        if system_text:
            body["system"] = system_text
        if tools:
            body["tools"] = [to_anthropic_tool(tool) for tool in tools]
            if self.tool_choice:
                body["tool_choice"] = {"type": ANTHROPIC_TOOL_CHOICE[self.tool_choice]}
        return body

    async def stream(
        self,
        messages: list[Message],
        tools: list[ToolDefinition],
        *,
        system: str | None = None,
    ) -> AsyncIterator[StreamItem]:
        headers = {"anthropic-version": API_VERSION}
        key = resolve_api_key(self.name, self._api_key, self.api_key_env)
        if key:
            headers["x-api-key"] = key
        body = self.request_body(messages, tools, system)
        async with open_sse(self.name, self.url, headers, body, self.request_timeout_ms) as events:
            async for item in self.read_events(events):
                yield item

    async def read_events(self, events: AsyncIterator[SSEEvent]) -> AsyncIterator[StreamItem]:
        """The items one response's events make (all that follows the HTTP exchange)."""
        state = EventState(self.name)
        async for event in events:
            for item in guarded(self.name, state.take, event.event,
                                decode_json(self.name, event.data)):
                yield item
            if state.stopped:
                break
        if not state.stopped:
            raise ModelError(f"{self.name}: the stream ended before the response was complete", kind="dropped")
        if state.usage_seen:
            yield Usage(input_tokens=state.input_tokens, output_tokens=state.output_tokens)
        yield Done(state.stop_reason or "end_turn")


class ToolBlock:
    def __init__(self, call_id: str, name: str, initial: Any) -> None:
        self.id = call_id
        self.name = name
        self.initial = initial
        self.parts: list[str] = []

    def text(self) -> str:
        if self.parts:
            return "".join(self.parts)
        return msgspec.json.encode(self.initial).decode() if self.initial else ""


class EventState:
    """What the events of one response have said so far."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tools: dict[int, ToolBlock] = {}
        self.input_tokens = 0
        self.output_tokens = 0
        self.usage_seen = False
        self.stop_reason: str | None = None
        self.stopped = False

    def take(self, kind: str, data: Any) -> list[StreamItem]:
        if not isinstance(data, dict):
            raise ModelError(f"{self.name}: unexpected data in stream for event {kind!r}")
        kind = data.get("type", kind)
        handler = getattr(self, "on_" + kind, None)
        return handler(data) if handler else []

    def on_error(self, data: dict[str, Any]) -> list[StreamItem]:
        err = data.get("error") or {}
        kind = err.get("type", "error")
        raise ModelError(f"{self.name}: {kind}: {err.get('message', '')}")

    def on_message_start(self, data: dict[str, Any]) -> list[StreamItem]:
        self.take_usage((data.get("message") or {}).get("usage"))
        return []

    def on_content_block_start(self, data: dict[str, Any]) -> list[StreamItem]:
        block = data.get("content_block") or {}
        if block.get("type") == "tool_use":
            self.tools[data.get("index", 0)] = ToolBlock(block.get("id", ""), block.get("name", ""), block.get("input"))
            return []
        if block.get("type") == "text" and block.get("text"):
            return [TextDelta(block["text"])]
        return []

    def on_content_block_delta(self, data: dict[str, Any]) -> list[StreamItem]:
        delta = data.get("delta") or {}
        if delta.get("type") == "text_delta" and delta.get("text"):
            return [TextDelta(delta["text"])]
        if delta.get("type") == "input_json_delta":
            block = self.tools.get(data.get("index", 0))
            if block is not None:
                block.parts.append(delta.get("partial_json", ""))
        return []

    def on_content_block_stop(self, data: dict[str, Any]) -> list[StreamItem]:
        block = self.tools.pop(data.get("index", 0), None)
        if block is None:
            return []
        return [tool_call_from_json(block.id, block.name, block.text())]

    def on_message_delta(self, data: dict[str, Any]) -> list[StreamItem]:
        reason = (data.get("delta") or {}).get("stop_reason")
        if reason:
            self.stop_reason = reason
        self.take_usage(data.get("usage"))
        return []

    def on_message_stop(self, data: dict[str, Any]) -> list[StreamItem]:
        self.stopped = True
        return []

    def take_usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        self.usage_seen = True
        inputs = [usage.get(k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")]
        if any(isinstance(n, int) for n in inputs):
            self.input_tokens = sum(n for n in inputs if isinstance(n, int))
        if isinstance(usage.get("output_tokens"), int):
            self.output_tokens = usage["output_tokens"]


# Conversion to the wire -------------------------------------------------------------------

def to_anthropic_messages(
    messages: list[Message], system: str | None
) -> tuple[str, list[dict[str, Any]]]:
    """(system text, messages): system entries join the top-level system prompt; each
    entry becomes blocks, and consecutive entries of one side merge into one message."""
    system_parts = [system] if system else []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            if message.text:
                system_parts.append(message.text)
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = to_blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return "\n\n".join(system_parts), out


def to_blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": message.text,
        }
        if message.is_error:
            block["is_error"] = True
        return [block]
    blocks: list[dict[str, Any]] = []
    if message.text:
        blocks.append({"type": "text", "text": message.text})
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return blocks


def to_anthropic_tool(tool: ToolDefinition) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}

"""One model request of a session: what the model sees of the tools, the reply streamed as
`assistant_delta` events (redacted across deltas), its usage, and the context's size."""

from __future__ import annotations

import msgspec

from ..protocol import bus as ev
from ..models.base import (STOP_MAX_TOKENS, Done, Message, TextDelta, ToolCallRequest,
                           ToolDefinition, Usage)
from .prompt import system_prompt
from .state import SessionState, opt

BYTES_PER_TOKEN = 4  # the context's size in tokens, estimated (no tokenizer is loaded)
TRUNCATED_TEXT = "the model's reply was cut at its output limit (max_tokens)"


def tool_definitions(s: SessionState) -> list[ToolDefinition]:
    """What the model sees of the tools: never panel state; denied tools absent."""
    return [ToolDefinition(**t.definition()) for t in s.agent.model_tools()]


def context_size(s: SessionState) -> tuple[int, int]:
    """(bytes, estimated tokens) of what the next model request would send: the system
    prompt, the conversation and the tool definitions, as JSON."""
    size = len(msgspec.json.encode({
        "system": system_prompt(s.agent, s.cwd),
        "messages": s.conversation.messages(), "tools": tool_definitions(s)}))
    return size, -(-size // BYTES_PER_TOKEN)


async def model_request(s: SessionState, turn_id: str) -> tuple[str, list[ToolCallRequest]]:
    """The turn's next request: its text published whole, each call given the session's own
    key (session/call_ids.py), its usage, a warning when the reply was cut."""
    text, calls = await stream(s, turn_id, s.conversation.messages(), tool_definitions(s))
    for call in calls:
        call.id = s.call_ids.key(call.id)
    s.bus.publish(ev.AssistantText(text=text, turn_id=turn_id))
    publish_usage(s, turn_id)
    if s.last_stop_reason == STOP_MAX_TOKENS:
        s.bus.publish(ev.Notice(level="warning", message=TRUNCATED_TEXT, turn_id=turn_id))
    return text, calls


def publish_usage(s: SessionState, turn_id: str) -> None:
    """A `usage` event for the request just made, when the provider reported one."""
    usage = s.last_usage
    if usage is None:
        return
    window = s.agent.model.context_window_tokens
    s.bus.publish(ev.TokenUsage(input_tokens=usage.input_tokens,
                                output_tokens=usage.output_tokens,
                                **opt(context_window_tokens=window), turn_id=turn_id))


async def stream(s: SessionState, turn_id: str, messages: list[Message],
                 tools: list[ToolDefinition], *, publish: bool = True
                 ) -> tuple[str, list[ToolCallRequest]]:
    """(the reply's text, its tool calls); the text goes out as deltas when `publish`."""
    parts: list[str] = []
    calls: list[ToolCallRequest] = []
    s.last_stop_reason = None
    shown = s.redactor.stream()  # a secret cut across two deltas is caught too

    def show(text: str) -> None:
        if publish and text:
            s.bus.publish(ev.AssistantDelta(text=text, turn_id=turn_id))

    async def consume() -> None:
        async for item in s.provider.stream(messages, tools,
                                            system=system_prompt(s.agent, s.cwd)):
            if isinstance(item, TextDelta):
                parts.append(item.text)
                show(shown.feed(item.text))
            elif isinstance(item, ToolCallRequest):
                calls.append(item)
            elif isinstance(item, Usage):
                s.last_usage = item
            elif isinstance(item, Done):
                s.last_stop_reason = item.stop_reason

    try:
        await s.unless_cancelled(consume())
    finally:
        show(shown.flush())
    return "".join(parts), calls

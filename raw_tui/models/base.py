"""The one small interface between a session and a model.

A session keeps the conversation as neutral `Message`s and calls
`provider.stream(messages, tools, system=...)`. The provider yields, in this order:

    TextDelta*  ToolCallRequest*  Usage?  Done

- `TextDelta` pieces concatenate to the assistant's text.
- `ToolCallRequest` is always complete (fragments are reassembled by the provider).
  When the model's arguments were not a JSON object, `arguments` is `{}` and
  `raw_arguments` holds the string: the session answers it with `invalid_arguments`.
- `Usage` comes at most once, when the provider reports it (the scripted model never does).
- `Done` is always last, exactly once on success. Its `stop_reason` is normalised:
  `end_turn`, `tool_use`, `max_tokens`, or the provider's own word for anything else.
  Decide whether to run tools by the `ToolCallRequest`s received, not by `stop_reason`.

Failures raise `ModelError` (code `model_error`) from the iterator, its message one line
(`openai-chat-completions: HTTP 401: Incorrect API key provided`). Cancel by cancelling the
task that consumes the iterator: the HTTP stream is closed on the way out. A consumer that
stops early without cancelling should wrap the iterator in `contextlib.aclosing`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, AsyncIterator, Literal, Protocol, Union, runtime_checkable

import msgspec

from ..protocol.errors import MODEL_ERROR, ConfigError, RawError
from ..jsonstrict import JsonError, decode

DEFAULT_REQUEST_TIMEOUT_MS = 120_000

METHOD_SCRIPTED = "scripted"
METHOD_OPENAI = "openai-chat-completions"
METHOD_ANTHROPIC = "anthropic-messages"
METHODS = (METHOD_SCRIPTED, METHOD_OPENAI, METHOD_ANTHROPIC)

STOP_END_TURN = "end_turn"
STOP_TOOL_USE = "tool_use"
STOP_MAX_TOKENS = "max_tokens"


# Conversation ---------------------------------------------------------------------------

class ToolCallRequest(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A complete tool call from the model (also a stream item)."""

    id: str
    name: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    raw_arguments: str | None = None  # the model's string when it was not a JSON object


class Message(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One conversation entry. `tool` messages answer one call: `tool_call_id`, `text`,
    `is_error`. `assistant` messages carry the text and the tool calls of one response."""

    role: Literal["system", "user", "assistant", "tool"]
    text: str = ""
    tool_calls: list[ToolCallRequest] = msgspec.field(default_factory=list)
    tool_call_id: str | None = None
    is_error: bool = False


def system_message(text: str) -> Message:
    return Message(role="system", text=text)


def user_message(text: str) -> Message:
    return Message(role="user", text=text)


def assistant_message(text: str, tool_calls: list[ToolCallRequest] | None = None) -> Message:
    return Message(role="assistant", text=text, tool_calls=list(tool_calls or []))


def tool_message(tool_call_id: str, text: str, *, is_error: bool = False) -> Message:
    return Message(role="tool", tool_call_id=tool_call_id, text=text, is_error=is_error)


class ToolDefinition(msgspec.Struct, kw_only=True):
    """What the model sees of a tool."""

    name: str
    description: str
    input_schema: dict[str, Any]


# Stream items ---------------------------------------------------------------------------

class TextDelta(msgspec.Struct):
    text: str


class Usage(msgspec.Struct):
    input_tokens: int
    output_tokens: int


class Done(msgspec.Struct):
    stop_reason: str


StreamItem = Union[TextDelta, ToolCallRequest, Usage, Done]


# Errors ---------------------------------------------------------------------------------

ErrorKind = Literal["http", "connect", "timeout", "dropped", "protocol", "auth"]


class ModelError(RawError):
    """A model request failed. `str(err)` is one line, prefixed with the method."""

    def __init__(self, message: str, *, kind: ErrorKind = "protocol", status: int | None = None) -> None:
        super().__init__(MODEL_ERROR, one_line(message))
        self.kind = kind
        self.status = status


def one_line(text: str, limit: int = 400) -> str:
    """Collapse whitespace (newlines included) and cap the length."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# The provider interface -----------------------------------------------------------------

@runtime_checkable
class ModelProvider(Protocol):
    """`name` is the method (`openai-chat-completions`, ...), used as the error prefix."""

    name: str

    def stream(
        self,
        messages: list[Message],
        tools: list[ToolDefinition],
        *,
        system: str | None = None,
    ) -> AsyncIterator[StreamItem]: ...

    def replay(self, prompts: list[str]) -> None:
        """A resumed session's requests so far (the prompt each answered, `""` for one
        answering tool results): the scripted model stands where they left its script; a
        provider that keeps no position ignores them."""
        ...


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """One `models.<alias>` entry as the providers need it. Any object with these
    attributes works with `make_provider`; missing ones take these defaults."""

    method: str
    model_id: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key: str | None = dataclasses.field(default=None, repr=False)
    script: str | Path | list[Any] | None = None  # path, or the lines inline (tests)
    request_timeout_ms: int = DEFAULT_REQUEST_TIMEOUT_MS
    context_window_tokens: int | None = None
    max_tokens: int | None = None  # anthropic-messages: default 4096; openai: not sent
    tool_choice: str | None = None  # auto | required | none; None: not sent (the server's default)
    provider: str | None = None
    alias: str | None = None  # for error paths: models.<alias>.<key>
    when_done: str | None = None  # scripted: the answer once the script has run out


def spec_value(spec: Any, key: str, default: Any = None) -> Any:
    value = getattr(spec, key, None)
    return default if value is None else value


def spec_path(spec: Any, key: str) -> str:
    alias = getattr(spec, "alias", None)
    return f"models.{alias}.{key}" if alias else key


def make_provider(spec: Any) -> ModelProvider:
    """The provider for a model config, keyed by `method`. Raises ConfigError for a
    configuration that cannot work (unknown method, missing model_id or script)."""
    method = getattr(spec, "method", None)
    if method == METHOD_SCRIPTED:
        from .scripted import ScriptedModel

        return ScriptedModel.from_spec(spec)
    if method == METHOD_OPENAI:
        from .openai_chat import OpenAIChatModel

        return OpenAIChatModel.from_spec(spec)
    if method == METHOD_ANTHROPIC:
        from .anthropic_messages import AnthropicMessagesModel

        return AnthropicMessagesModel.from_spec(spec)
    raise ConfigError(
        f"unknown model method {method!r}; expected one of {', '.join(METHODS)}",
        path=spec_path(spec, "method"),
    )


def tool_call_from_json(call_id: str, name: str, raw: str) -> ToolCallRequest:
    """A tool call whose arguments arrived as JSON text. An empty string means no
    arguments; anything that is not a JSON object keeps the text in `raw_arguments`."""
    if not raw.strip():
        return ToolCallRequest(id=call_id, name=name, arguments={})
    try:  # the one strict decoder: no 1e999 as inf, no duplicate key, bounded depth
        value = decode(raw)
    except JsonError:
        value = None
    if isinstance(value, dict):
        return ToolCallRequest(id=call_id, name=name, arguments=value)
    return ToolCallRequest(id=call_id, name=name, arguments={}, raw_arguments=raw)

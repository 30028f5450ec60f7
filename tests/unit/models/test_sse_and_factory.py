from types import SimpleNamespace

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.models import ModelProvider, ModelSpec, make_provider
from raw_tui.models.anthropic_messages import AnthropicMessagesModel
from raw_tui.models.base import ModelError, ToolCallRequest, tool_call_from_json
from raw_tui.models.openai_chat import OpenAIChatModel
from raw_tui.models.scripted import ScriptedModel
from raw_tui.models.sse import SSEEvent, iter_sse


async def lines_of(*lines):
    for line in lines:
        yield line


async def parse(*lines):
    return [event async for event in iter_sse(lines_of(*lines))]


async def test_sse_events_fields_comments_and_multiline_data():
    events = await parse(
        ": keep-alive comment", "",
        "event: message_start", "data: {\"a\": 1}", "",
        "data:no-space", "data:  two spaces", "id: 7", "retry: 10", "",
        "event: ping", "",  # no data: not dispatched
        "data: cut off at the end",
    )
    assert events == [SSEEvent("message_start", '{"a": 1}'), SSEEvent("message", "no-space\n two spaces")]


def test_tool_call_from_json():
    assert tool_call_from_json("c", "t", ' {"a": [1]} ') == ToolCallRequest(id="c", name="t", arguments={"a": [1]})
    assert tool_call_from_json("c", "t", "  ") == ToolCallRequest(id="c", name="t", arguments={})
    assert tool_call_from_json("c", "t", '"str"').raw_arguments == '"str"'
    assert tool_call_from_json("c", "t", "{").raw_arguments == "{"


def test_model_error_is_one_line_and_capped():
    err = ModelError("openai-chat-completions: HTTP 500: line one\nline two\r\n  " + "x" * 1000)
    assert err.code == "model_error"
    assert str(err).startswith("openai-chat-completions: HTTP 500: line one line two xxx")
    assert "\n" not in str(err) and len(str(err)) == 400


@pytest.mark.parametrize(
    "spec, cls",
    [
        (ModelSpec(method="scripted", script=[{"text": "hi"}]), ScriptedModel),
        (ModelSpec(method="openai-chat-completions", model_id="gpt"), OpenAIChatModel),
        (ModelSpec(method="anthropic-messages", model_id="claude"), AnthropicMessagesModel),
        # any object with the attributes works; absent ones take the defaults
        (SimpleNamespace(method="openai-chat-completions", model_id="llama3", base_url="http://localhost:11434/v1/"),
         OpenAIChatModel),
    ],
)
def test_make_provider_is_keyed_by_method(spec, cls):
    model = make_provider(spec)
    assert type(model) is cls
    assert isinstance(model, ModelProvider)
    assert model.name == spec.method


def test_provider_defaults():
    openai = make_provider(SimpleNamespace(method="openai-chat-completions", model_id="gpt"))
    assert (openai.url, openai.request_timeout_ms) == ("https://api.openai.com/v1/chat/completions", 120000)
    anthropic = make_provider(ModelSpec(method="anthropic-messages", model_id="claude"))
    assert (anthropic.url, anthropic.max_tokens) == ("https://api.anthropic.com/v1/messages", 4096)
    local = make_provider(SimpleNamespace(method="openai-chat-completions", model_id="m", base_url="http://h:1/v1/"))
    assert local.url == "http://h:1/v1/chat/completions"


def test_an_unknown_method_is_a_config_error_with_its_path():
    with pytest.raises(ConfigError) as info:
        make_provider(ModelSpec(method="gemini", alias="fast"))
    assert str(info.value) == (
        "models.fast.method: unknown model method 'gemini'; "
        "expected one of scripted, openai-chat-completions, anthropic-messages"
    )

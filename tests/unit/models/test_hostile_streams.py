"""Hostile model streams, for both HTTP providers against a real local server: an event
nested thousands deep is one ModelError line (it was a RecursionError), and arguments that
are too deep or hold `1e999` stay raw text (refused by the gate as invalid_arguments),
never a value with inf in it."""

from __future__ import annotations

import json

import pytest

from raw_tui.models import ModelSpec, make_provider
from raw_tui.models.base import ToolCallRequest, ToolDefinition, user_message
from tests.servers import anthropic_wire, openai_wire
from tests.servers.http_server import Reply
from tests.servers.provider_checks import collect, model_error

HELLO = [user_message("hi")]
TOOL = ToolDefinition(name="num", description="A number.", input_schema={
    "type": "object", "properties": {"n": {"type": "number"}}})
DEEP = "[" * 5000 + "]" * 5000


def openai(server):
    return make_provider(ModelSpec(method="openai-chat-completions", model_id="m",
                                   base_url=server.url + "/v1", api_key="k"))


def anthropic(server):
    return make_provider(ModelSpec(method="anthropic-messages", model_id="m",
                                   base_url=server.url, api_key="k"))


def deep_event(wire_name: str) -> Reply:
    if wire_name == "openai":
        return Reply(chunks=[openai_wire.sse(openai_wire.chunk({"content": "ok"})),
                             f"data: {DEEP}\n\n".encode()])
    return Reply(chunks=[anthropic_wire.message_start(1), f"event: ping\ndata: {DEEP}\n\n".encode()])


def calls_reply(wire_name: str, arguments: str) -> Reply:
    if wire_name == "openai":
        return openai_wire.tool_calls_reply([("c1", "num", arguments)])
    return anthropic_wire.tool_use_reply([("c1", "num", arguments)])


@pytest.mark.parametrize("wire_name", ["openai", "anthropic"])
async def test_an_event_nested_thousands_deep_is_one_line(protocol_server, wire_name):
    protocol_server.enqueue(deep_event(wire_name))
    make = openai if wire_name == "openai" else anthropic
    err = await model_error(make(protocol_server), HELLO)
    assert "invalid JSON in stream" in str(err)


@pytest.mark.parametrize("wire_name", ["openai", "anthropic"])
@pytest.mark.parametrize("arguments", ['{"n": 1e999}', '{"n": -1e400}', '{"n": NaN}',
                                       '{"n": ' + DEEP + "}", '{"n": 1, "n": 2}'],
                         ids=["1e999", "-1e400", "NaN", "deep", "duplicate"])
async def test_arguments_that_are_not_strict_json_stay_raw(protocol_server, wire_name,
                                                           arguments):
    protocol_server.enqueue(calls_reply(wire_name, arguments))
    make = openai if wire_name == "openai" else anthropic
    items = await collect(make(protocol_server), HELLO, [TOOL])
    calls = [item for item in items if isinstance(item, ToolCallRequest)]
    assert calls == [ToolCallRequest(id="c1", name="num", arguments={},
                                     raw_arguments=arguments)]
    json.dumps(calls[0].arguments, allow_nan=False)  # nothing infinite was decoded

"""anthropic-messages against a real local server speaking the wire format."""

import json
import time

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.models import ModelSpec, make_provider
from raw_tui.models.anthropic_messages import AnthropicMessagesModel
from raw_tui.models.base import (
    Done,
    ToolCallRequest,
    Usage,
    assistant_message,
    system_message,
    tool_message,
    user_message,
)
from tests.servers import anthropic_wire as wire
from tests.servers.http_server import Reply, closed_port
from tests.servers.provider_checks import (HELLO, READ_TOOL, cancel_mid_stream, collect, kinds,
                                           model_error, text_of)



def provider(server, **kw) -> AnthropicMessagesModel:
    spec = {"method": "anthropic-messages", "model_id": "claude-test", "base_url": server.url,
            "api_key": "sk-ant-secret", **kw}
    return make_provider(ModelSpec(**spec))


# normal streams ---------------------------------------------------------------------------

async def test_text_streams_with_usage_and_done(protocol_server):
    protocol_server.enqueue(wire.text_reply("Hello, world! How are you?", usage=(21, 9)))
    items = await collect(provider(protocol_server), HELLO, system="Be brief.")
    assert text_of(items) == "Hello, world! How are you?"
    assert items[-2:] == [Usage(input_tokens=21, output_tokens=9), Done("end_turn")]
    assert set(kinds(items[:-2])) == {"TextDelta"}

    request = protocol_server.last
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert request.headers["x-api-key"] == "sk-ant-secret"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Say hello"}]}],
        "stream": True,
        "system": "Be brief.",
    }


async def test_a_base_url_ending_in_v1_and_max_tokens_are_honoured(protocol_server):
    protocol_server.enqueue(wire.text_reply("ok", split=4))
    items = await collect(provider(protocol_server, base_url=protocol_server.url + "/v1/", max_tokens=256), HELLO)
    assert text_of(items) == "ok"
    assert protocol_server.last.path == "/v1/messages"
    assert protocol_server.last.body["max_tokens"] == 256
    assert "system" not in protocol_server.last.body


async def test_fragmented_tool_use_blocks_are_reassembled(protocol_server):
    calls = [
        ("toolu_1", "read_file", json.dumps({"path": "src/main.py"})),
        ("toolu_2", "bash", json.dumps({"command": "grep -r 'x' .", "timeout": 5})),
    ]
    protocol_server.enqueue(wire.tool_use_reply(calls, text="Let me look.", fragment=3, split=9))
    items = await collect(provider(protocol_server), HELLO, [READ_TOOL])
    assert text_of(items) == "Let me look."
    assert [item for item in items if isinstance(item, ToolCallRequest)] == [
        ToolCallRequest(id="toolu_1", name="read_file", arguments={"path": "src/main.py"}),
        ToolCallRequest(id="toolu_2", name="bash", arguments={"command": "grep -r 'x' .", "timeout": 5}),
    ]
    assert items[-2:] == [Usage(40, 18), Done("tool_use")]
    assert protocol_server.last.body["tools"] == [
        {"name": "read_file", "description": "Read a file.", "input_schema": READ_TOOL.input_schema}
    ]


async def test_malformed_input_json_becomes_raw_arguments(protocol_server):
    broken = '{"path": "a.txt'
    protocol_server.enqueue(wire.tool_use_reply([("toolu_x", "read_file", broken), ("toolu_y", "noargs", "")]))
    items = await collect(provider(protocol_server), HELLO, [READ_TOOL])
    assert items[0] == ToolCallRequest(id="toolu_x", name="read_file", arguments={}, raw_arguments=broken)
    assert items[1] == ToolCallRequest(id="toolu_y", name="noargs", arguments={})


async def test_the_conversation_is_converted_to_messages_blocks(protocol_server):
    protocol_server.enqueue(wire.text_reply("ok"))
    messages = [
        system_message("Extra rules."),
        user_message("Read a.txt and b.txt"),
        assistant_message("Reading.", [
            ToolCallRequest(id="t1", name="read_file", arguments={"path": "a.txt"}),
            ToolCallRequest(id="t2", name="read_file", arguments={}, raw_arguments="{bad"),
        ]),
        tool_message("t1", "contents of a"),
        tool_message("t2", "invalid_arguments: not JSON", is_error=True),
        assistant_message(""),  # an empty answer (e.g. an exhausted turn) has no blocks: skipped
        user_message("Thanks"),
    ]
    await collect(provider(protocol_server), messages, [READ_TOOL], system="You are terse.")
    body = protocol_server.last.body
    assert body["system"] == "You are terse.\n\nExtra rules."
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Read a.txt and b.txt"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.txt"}},
            {"type": "tool_use", "id": "t2", "name": "read_file", "input": {}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "contents of a"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "invalid_arguments: not JSON", "is_error": True},
            {"type": "text", "text": "Thanks"},
        ]},
    ]


async def test_the_key_comes_from_api_key_env(protocol_server, monkeypatch):
    monkeypatch.setenv("RAW_TEST_ANTHROPIC_KEY", "sk-ant-env")
    protocol_server.enqueue(wire.text_reply("ok"))
    await collect(provider(protocol_server, api_key=None, api_key_env="RAW_TEST_ANTHROPIC_KEY"), HELLO)
    assert protocol_server.last.headers["x-api-key"] == "sk-ant-env"


def test_model_id_is_required():
    with pytest.raises(ConfigError) as info:
        make_provider(ModelSpec(method="anthropic-messages", alias="claude"))
    assert str(info.value) == "models.claude.model_id: model_id is required for method anthropic-messages"


# errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "status, type_, message",
    [
        (401, "authentication_error", "invalid x-api-key"),
        (429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
        (500, "api_error", "Internal server error"),
        (529, "overloaded_error", "Overloaded"),
    ],
)
async def test_http_errors_are_one_line_with_status_and_provider_message(protocol_server, status, type_, message):
    protocol_server.enqueue(wire.error_reply(status, type_, message))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == f"anthropic-messages: HTTP {status}: {message}"
    assert (err.kind, err.status) == ("http", status)
    assert "sk-ant-secret" not in str(err)


async def test_an_error_event_mid_stream_is_one_line(protocol_server):
    protocol_server.enqueue(wire.stream_error_reply("overloaded_error", "Overloaded"))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "anthropic-messages: overloaded_error: Overloaded"


async def test_a_stalled_stream_times_out_after_request_timeout_ms(protocol_server):
    protocol_server.enqueue(wire.text_reply("This never finishes", stall_after=4))
    started = time.monotonic()
    err = await model_error(provider(protocol_server, request_timeout_ms=300), HELLO)
    assert str(err) == f"anthropic-messages: timed out after 300 ms waiting for 127.0.0.1:{protocol_server.port}"
    assert 0.25 < time.monotonic() - started < 3
    assert protocol_server.last.client_gone.wait(3)


async def test_a_connection_dropped_mid_stream_is_one_line(protocol_server):
    protocol_server.enqueue(wire.text_reply("Hello there, this is cut", drop_after=4))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err).startswith(f"anthropic-messages: connection dropped mid-stream from 127.0.0.1:{protocol_server.port}: ")


async def test_a_stream_without_message_stop_is_an_error(protocol_server):
    protocol_server.enqueue(Reply(chunks=wire.text_reply("Partial").chunks[:-2]))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "anthropic-messages: the stream ended before the response was complete"


async def test_garbage_in_the_stream_is_one_line(protocol_server):
    protocol_server.enqueue(Reply(chunks=[wire.message_start(3), b"event: content_block_delta\ndata: <html>\n\n"]))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "anthropic-messages: invalid JSON in stream: <html>"


async def test_a_refused_connection_is_one_line():
    port = closed_port()
    err = await model_error(AnthropicMessagesModel("claude-test", base_url=f"http://127.0.0.1:{port}"), HELLO)
    assert str(err).startswith(f"anthropic-messages: cannot connect to 127.0.0.1:{port}: ")


# cancel -----------------------------------------------------------------------------------

async def test_cancelling_the_consumer_closes_the_connection(protocol_server):
    protocol_server.enqueue(wire.text_reply("First words then a long silence", stall_after=4))
    seen = await cancel_mid_stream(provider(protocol_server), HELLO)
    assert text_of(seen)
    assert protocol_server.last.client_gone.wait(3), "the server did not see the client disconnect"


@pytest.mark.parametrize("name, payload", [
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta", "text": 42}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": "x"}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
                             "content_block": {"type": "tool_use", "id": 5, "name": "read_file"}}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
                             "content_block": {"type": "tool_use", "id": "t", "name": None}}),
    ("message_delta", {"type": ["message_delta"]}),
    ("error", {"type": "error", "error": "overloaded"}),
])
async def test_wrongly_typed_data_in_the_stream_is_one_line(protocol_server, name, payload):
    chunks = [wire.message_start(3), wire.event(name, payload),
              wire.event("content_block_stop", {"type": "content_block_stop", "index": 0}),
              *wire.ending("end_turn", 1)]
    protocol_server.enqueue(Reply(chunks=chunks))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err).startswith("anthropic-messages: ")
    assert "unexpected data in stream" in str(err) or str(err) == \
        "anthropic-messages: error: overloaded"

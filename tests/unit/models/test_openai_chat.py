"""openai-chat-completions against a real local server speaking the wire format."""

import json
import time

import pytest

from raw_tui.models import ModelSpec, make_provider
from raw_tui.models.base import (
    Done,
    ToolCallRequest,
    Usage,
    assistant_message,
    system_message,
    tool_message,
    user_message,
)
from raw_tui.models.openai_chat import OpenAIChatModel
from tests.servers import openai_wire as wire
from tests.servers.http_server import Reply, closed_port
from tests.servers.provider_checks import (HELLO, READ_TOOL, cancel_mid_stream, collect, kinds,
                                           model_error, text_of)



def provider(server, **kw) -> OpenAIChatModel:
    spec = {"method": "openai-chat-completions", "model_id": "gpt-test", "base_url": server.url + "/v1",
            "api_key": "sk-test-secret", **kw}
    return make_provider(ModelSpec(**spec))


# normal streams ---------------------------------------------------------------------------

async def test_text_streams_with_usage_and_done(protocol_server):
    protocol_server.enqueue(wire.text_reply("Hello, world! How are you?", usage=(12, 7)))
    items = await collect(provider(protocol_server), HELLO, system="Be brief.")
    assert text_of(items) == "Hello, world! How are you?"
    assert items[-2:] == [Usage(input_tokens=12, output_tokens=7), Done("end_turn")]
    assert set(kinds(items[:-2])) == {"TextDelta"}

    request = protocol_server.last
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer sk-test-secret"
    assert request.body == {
        "model": "gpt-test",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def test_lines_cut_across_network_chunks_are_reassembled(protocol_server):
    protocol_server.enqueue(wire.text_reply("Split into tiny TCP pieces.", split=5))
    items = await collect(provider(protocol_server), HELLO)
    assert text_of(items) == "Split into tiny TCP pieces."
    assert items[-1] == Done("end_turn")


async def test_fragmented_tool_calls_are_reassembled_in_index_order(protocol_server):
    calls = [
        ("call_a", "read_file", json.dumps({"path": "src/main.py"})),
        ("call_b", "bash", json.dumps({"command": "ls -la | head", "timeout": 5})),
        ("call_c", "write_file", json.dumps({"path": "x", "content": "é\n\"quoted\""})),
    ]
    protocol_server.enqueue(wire.tool_calls_reply(calls, text="Let me look.", fragment=3, interleave=True, split=7))
    items = await collect(provider(protocol_server), HELLO, [READ_TOOL])
    assert text_of(items) == "Let me look."
    tool_calls = [item for item in items if isinstance(item, ToolCallRequest)]
    assert tool_calls == [
        ToolCallRequest(id="call_a", name="read_file", arguments={"path": "src/main.py"}),
        ToolCallRequest(id="call_b", name="bash", arguments={"command": "ls -la | head", "timeout": 5}),
        ToolCallRequest(id="call_c", name="write_file", arguments={"path": "x", "content": "é\n\"quoted\""}),
    ]
    assert items[-2:] == [Usage(40, 18), Done("tool_use")]
    assert protocol_server.last.body["tools"] == [{
        "type": "function",
        "function": {"name": "read_file", "description": "Read a file.", "parameters": READ_TOOL.input_schema},
    }]


async def test_malformed_arguments_become_raw_arguments(protocol_server):
    broken = '{"path": "a.txt", '
    protocol_server.enqueue(wire.tool_calls_reply([("call_x", "read_file", broken), ("call_y", "noargs", "")]))
    items = await collect(provider(protocol_server), HELLO, [READ_TOOL])
    assert items[0] == ToolCallRequest(id="call_x", name="read_file", arguments={}, raw_arguments=broken)
    assert items[1] == ToolCallRequest(id="call_y", name="noargs", arguments={})


async def test_the_conversation_is_converted_to_chat_messages(protocol_server):
    protocol_server.enqueue(wire.text_reply("ok"))
    messages = [
        system_message("Extra rules."),
        user_message("Read a.txt"),
        assistant_message("Reading.", [ToolCallRequest(id="c1", name="read_file", arguments={"path": "a.txt"})]),
        tool_message("c1", "contents of a"),
        assistant_message("", [ToolCallRequest(id="c2", name="read_file", arguments={}, raw_arguments="{bad")]),
        tool_message("c2", "invalid_arguments: not JSON", is_error=True),
        assistant_message("Done."),
        user_message("Thanks"),
    ]
    await collect(provider(protocol_server), messages, [READ_TOOL], system="You are terse.")
    assert protocol_server.last.body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "system", "content": "Extra rules."},
        {"role": "user", "content": "Read a.txt"},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a.txt"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "contents of a"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "invalid_arguments: not JSON"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Thanks"},
    ]


async def test_the_key_comes_from_api_key_env(protocol_server, monkeypatch):
    monkeypatch.setenv("RAW_TEST_OPENAI_KEY", "sk-from-env")
    protocol_server.enqueue(wire.text_reply("ok"))
    await collect(provider(protocol_server, api_key=None, api_key_env="RAW_TEST_OPENAI_KEY"), HELLO)
    assert protocol_server.last.headers["authorization"] == "Bearer sk-from-env"


async def test_without_a_key_no_authorization_is_sent(protocol_server):
    protocol_server.enqueue(wire.text_reply("ok"))
    await collect(provider(protocol_server, api_key=None), HELLO)
    assert "authorization" not in protocol_server.last.headers


async def test_an_unset_key_variable_is_one_line_before_any_request(protocol_server, monkeypatch):
    monkeypatch.delenv("RAW_TEST_MISSING_KEY", raising=False)
    err = await model_error(provider(protocol_server, api_key=None, api_key_env="RAW_TEST_MISSING_KEY"), HELLO)
    assert str(err) == "openai-chat-completions: environment variable RAW_TEST_MISSING_KEY is not set"
    assert protocol_server.requests == []


# errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "status, message",
    [
        (401, "Incorrect API key provided: sk-test-***cret. You can find your API key at https://platform.openai.com."),
        (429, "Rate limit reached for gpt-test in organization org-x on tokens per min."),
        (500, "The server had an error while processing your request."),
    ],
)
async def test_http_errors_are_one_line_with_status_and_provider_message(protocol_server, status, message):
    protocol_server.enqueue(wire.error_reply(status, message))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == f"openai-chat-completions: HTTP {status}: {message}"
    assert (err.kind, err.status) == ("http", status)


async def test_an_error_body_in_ollama_style_or_plain_text_is_still_read(protocol_server):
    protocol_server.enqueue(
        Reply(status=404, content_type="application/json", body=b'{"error": "model \\"llama9\\" not found"}'),
        Reply(status=502, content_type="text/html", body=b"<html>\n<body>Bad gateway</body>\n</html>\n"),
    )
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == 'openai-chat-completions: HTTP 404: model "llama9" not found'
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "openai-chat-completions: HTTP 502: <html> <body>Bad gateway</body> </html>"


async def test_a_stalled_stream_times_out_after_request_timeout_ms(protocol_server):
    protocol_server.enqueue(wire.text_reply("This never finishes", stall_after=3))
    started = time.monotonic()
    err = await model_error(provider(protocol_server, request_timeout_ms=300), HELLO)
    elapsed = time.monotonic() - started
    assert str(err) == f"openai-chat-completions: timed out after 300 ms waiting for 127.0.0.1:{protocol_server.port}"
    assert err.kind == "timeout"
    assert 0.25 < elapsed < 3
    assert protocol_server.last.client_gone.wait(3)


@pytest.mark.parametrize("reply", [Reply(silent=True), Reply(chunks=[], stall_after=0)], ids=["no-headers", "headers-only"])
async def test_a_server_that_never_answers_times_out_too(protocol_server, reply):
    protocol_server.enqueue(reply)
    err = await model_error(provider(protocol_server, request_timeout_ms=300), HELLO)
    assert str(err) == f"openai-chat-completions: timed out after 300 ms waiting for 127.0.0.1:{protocol_server.port}"
    assert protocol_server.last.client_gone.wait(3)


async def test_a_connection_dropped_mid_stream_is_one_line(protocol_server):
    protocol_server.enqueue(wire.text_reply("Hello there, this is cut", drop_after=3))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err).startswith(f"openai-chat-completions: connection dropped mid-stream from 127.0.0.1:{protocol_server.port}: ")
    assert err.kind == "dropped"


async def test_a_refused_connection_is_one_line():
    port = closed_port()
    model = OpenAIChatModel("gpt-test", base_url=f"http://127.0.0.1:{port}/v1")
    err = await model_error(model, HELLO)
    assert str(err).startswith(f"openai-chat-completions: cannot connect to 127.0.0.1:{port}: ")
    assert err.kind == "connect"


async def test_a_stream_closed_cleanly_before_the_end_is_an_error(protocol_server):
    chunks = wire.text_reply("Partial").chunks[:3]
    protocol_server.enqueue(Reply(chunks=chunks))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "openai-chat-completions: the stream ended before the response was complete"


async def test_garbage_in_the_stream_is_one_line(protocol_server):
    protocol_server.enqueue(Reply(chunks=[wire.sse(wire.chunk({"content": "ok"})), b"data: {not json\n\n"]))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "openai-chat-completions: invalid JSON in stream: {not json"


async def test_an_error_object_inside_the_stream_is_one_line(protocol_server):
    protocol_server.enqueue(wire.stream_error_reply("CUDA out of memory.\nTried to allocate 2 GiB"))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "openai-chat-completions: error in stream: CUDA out of memory. Tried to allocate 2 GiB"


async def test_a_json_answer_instead_of_a_stream_is_one_line(protocol_server):
    protocol_server.enqueue(Reply(status=200, content_type="application/json", body=b'{"error": {"message": "streaming unsupported"}}'))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err) == "openai-chat-completions: expected an event stream, got application/json: streaming unsupported"


async def test_the_api_key_never_appears_in_errors_or_repr(protocol_server):
    protocol_server.enqueue(wire.error_reply(401, "Incorrect API key provided"))
    model = provider(protocol_server)
    err = await model_error(model, HELLO)
    assert "sk-test-secret" not in str(err)
    assert "sk-test-secret" not in repr(model)
    assert "sk-test-secret" not in repr(ModelSpec(method="openai-chat-completions", api_key="sk-test-secret"))


# cancel -----------------------------------------------------------------------------------

async def test_cancelling_the_consumer_closes_the_connection(protocol_server):
    protocol_server.enqueue(wire.text_reply("First words then a long silence", stall_after=3))
    seen = await cancel_mid_stream(provider(protocol_server), HELLO)
    assert text_of(seen)
    assert protocol_server.last.client_gone.wait(3), "the server did not see the client disconnect"


async def test_closing_the_iterator_early_closes_the_connection(protocol_server):
    from contextlib import aclosing

    protocol_server.enqueue(wire.text_reply("First words then a long silence", stall_after=3))
    async with aclosing(provider(protocol_server).stream(HELLO, [])) as items:
        async for _ in items:
            break
    assert protocol_server.last.client_gone.wait(3)


async def test_a_base_url_without_scheme_is_one_line():
    err = await model_error(OpenAIChatModel("m", base_url="localhost:11434/v1"), HELLO)
    assert str(err) == ("openai-chat-completions: invalid URL 'localhost:11434/v1/chat/completions': "
                        "Request URL is missing an 'http://' or 'https://' protocol.")


@pytest.mark.parametrize("payload", [
    {"choices": [{"index": 0, "delta": "text"}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": ["x"]}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": 7, "function": {"name": "read_file", "arguments": "{}"}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "c1", "function": {"name": ["read_file"], "arguments": "{}"}}]}}]},
    {"choices": [], "usage": {"prompt_tokens": "many"}},
    {"choices": [], "usage": {"prompt_tokens": [1]}},
])
async def test_wrongly_typed_data_in_the_stream_is_one_line(protocol_server, payload):
    # a garbage-speaking server must end in a clear message, not a crash deeper in
    chunks = [wire.sse(payload), wire.sse(wire.chunk(finish_reason="stop")), wire.sse("[DONE]")]
    protocol_server.enqueue(Reply(chunks=chunks))
    err = await model_error(provider(protocol_server), HELLO)
    assert str(err).startswith("openai-chat-completions: unexpected data in stream")

"""Both HTTP methods against the local protocol servers, for the end-to-end tests: `Wire`
(the replies a server of that method sends, and how to read what it was sent), `WIRES` by
method, and the fixtures `wire` (each method in turn) and `server` (a running server)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest

from tests.servers import anthropic_wire, openai_wire
from tests.servers.http_server import ProtocolServer, Reply


@dataclass
class Wire:
    method: str
    text: Callable[..., Reply]
    calls: Callable[..., Reply]
    error: Callable[[int, str], Reply]

    # reading a recorded request body ----------------------------------------------------
    def system(self, body: dict) -> str:
        if self.method == "anthropic-messages":
            return body.get("system")
        first = body["messages"][0]
        assert first["role"] == "system"
        return first["content"]

    def tools(self, body: dict) -> list[dict[str, Any]]:
        if self.method == "anthropic-messages":
            return body.get("tools", [])
        return [{"name": t["function"]["name"], "description": t["function"]["description"],
                 "input_schema": t["function"]["parameters"]} for t in body.get("tools", [])]

    def results(self, body: dict) -> list[tuple[str, str]]:
        """(tool call id, text) of every tool result in the request."""
        if self.method == "anthropic-messages":
            return [(b["tool_use_id"], b["content"]) for m in body["messages"]
                    if isinstance(m["content"], list) for b in m["content"]
                    if b["type"] == "tool_result"]
        return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]

    def user_texts(self, body: dict) -> list[str]:
        out = []
        for m in body["messages"]:
            if m["role"] != "user":
                continue
            if isinstance(m["content"], str):
                out.append(m["content"])
            else:
                out += [b["text"] for b in m["content"] if b["type"] == "text"]
        return out


WIRES = {
    "openai-chat-completions": Wire(
        "openai-chat-completions", openai_wire.text_reply,
        lambda calls, **kw: openai_wire.tool_calls_reply(calls, fragment=3, interleave=True, **kw),
        lambda status, message: openai_wire.error_reply(status, message)),
    "anthropic-messages": Wire(
        "anthropic-messages", anthropic_wire.text_reply,
        lambda calls, **kw: anthropic_wire.tool_use_reply(calls, fragment=3, **kw),
        lambda status, message: anthropic_wire.error_reply(status, "api_error", message)),
}


@pytest.fixture(params=list(WIRES))
def wire(request) -> Wire:
    return WIRES[request.param]


@pytest.fixture
def server():
    with ProtocolServer() as srv:
        yield srv

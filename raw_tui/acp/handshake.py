"""The `initialize` exchange, without the ACP SDK.

Importing the SDK takes 1–3 s (its schema is thousands of pydantic models), and an editor
waits for the `initialize` reply before it shows the agent as ready. So `raw-tui acp`
answers a well-formed `initialize` itself while the SDK loads in a thread; anything else
(a malformed or unexpected first message) is left to the SDK, which answers it as usual.
The reply is the same either way: `initialize_result` is the one description of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..jsonstrict import JsonError, decode

# `_meta.raw` flags a client may send (booleans), and those raw-tui serves.
KNOWN_FLAGS = ("runtimeInfo", "sessionConfigure", "toolRegister", "toolCall", "sessionCompact",
               "toolCancel", "panelsV2", "interactions", "panels")
SERVED_FLAGS = ("runtimeInfo", "sessionConfigure", "sessionCompact", "panelsV2", "interactions",
                "toolRegister", "toolCall", "toolCancel")
PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class ClientFlags:
    """What the client negotiated in `initialize` (`_meta.raw`)."""

    panels_v2: bool = False
    interactions: bool = False
    tool_register: bool = False
    tool_call: bool = False
    tool_cancel: bool = False
    runtime_info: bool = False
    session_configure: bool = False
    session_compact: bool = False


class FlagError(ValueError):
    pass


def read_flags(offered: Any) -> ClientFlags:
    """The client's `_meta.raw`; a known flag that is not a boolean raises FlagError
    (`_meta.raw.X must be boolean`); unknown flags are ignored."""
    if offered is None:
        return ClientFlags()
    if not isinstance(offered, dict):
        raise FlagError("_meta.raw must be an object")
    for flag in KNOWN_FLAGS:
        if flag in offered and not isinstance(offered[flag], bool):
            raise FlagError(f"_meta.raw.{flag} must be boolean")
    return ClientFlags(panels_v2=offered.get("panelsV2") is True,
                       interactions=offered.get("interactions") is True,
                       tool_register=offered.get("toolRegister") is True,
                       tool_call=offered.get("toolCall") is True,
                       tool_cancel=offered.get("toolCancel") is True,
                       runtime_info=offered.get("runtimeInfo") is True,
                       session_configure=offered.get("sessionConfigure") is True,
                       session_compact=offered.get("sessionCompact") is True)


def initialize_result(version: str) -> dict[str, Any]:
    """The `initialize` result (wire JSON)."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            # a client's stdio and streamable-http MCP servers are added (hidden until selected)
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "delete": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": "raw-tui", "title": "raw-tui", "version": version},
        "_meta": {"raw": {flag: True for flag in SERVED_FLAGS}},
    }


def offered_flags(params: dict[str, Any]) -> Any:
    """`_meta.raw` of the request, else of `clientCapabilities`."""
    meta = params.get("_meta")
    if isinstance(meta, dict) and "raw" in meta:
        return meta["raw"]
    caps = params.get("clientCapabilities")
    meta = caps.get("_meta") if isinstance(caps, dict) else None
    return meta.get("raw") if isinstance(meta, dict) else None


def early_reply(line: bytes, version: str) -> tuple[bytes, ClientFlags] | None:
    """(the reply line, the client's flags) for a well-formed `initialize` request; None
    for anything else (the SDK will answer it)."""
    try:  # the one strict decoder: a line nested thousands deep is not a RecursionError
        message = decode(line)
    except JsonError:
        return None
    if not (isinstance(message, dict) and message.get("jsonrpc") == "2.0"
            and message.get("method") == "initialize" and "id" in message
            and isinstance(message.get("params"), dict)):
        return None
    params = message["params"]
    protocol = params.get("protocolVersion")
    if isinstance(protocol, bool) or not isinstance(protocol, int) \
            or not 0 <= protocol <= 65535:
        return None
    if not isinstance(params.get("clientCapabilities", {}), (dict, type(None))):
        return None
    try:
        flags = read_flags(offered_flags(params))
    except FlagError:
        return None
    reply = {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(version)}
    return (json.dumps(reply, separators=(",", ":")) + "\n").encode(), flags

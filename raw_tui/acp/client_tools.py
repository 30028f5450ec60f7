"""Client tools: a tool the ACP client implements (`_raw/tool/register`, docs/acp.md).

The tool joins its session's agent with identity `acp:<name>`; the model sees an alias.
Every call goes through the whole gate like any other (rules match `acp:*`, hooks see it,
`ask` asks the client for permission); only the handler is the client's: the engine sends
`_raw/tool/call` and waits for `{isError, content}`; a cancelled call sends `_raw/tool/cancel`
(when the client negotiated `toolCancel`).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Awaitable, Callable, ClassVar

from ..contract.schema import build_validator
from ..protocol import errors
from ..protocol.errors import ConfigError
from ..tools.ports import Tool
from ..tools.registry import ExposedTools
from ..tools.result import error_result, normalize

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # a fixed pattern of ours, not a user pattern
CALL_TIMEOUT_S = 120.0  # one `_raw/tool/call` (Raw's requestTimeoutMs default)
CONTENT_TYPES = frozenset({"text", "json"})
MAX_DESCRIPTION = 4096


class Refused(Exception):
    """A registration refused: `code` is the JSON-RPC code (codes.py)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(eq=False)
class AcpClientTool:
    """A client tool as dispatch sees it (the Tool protocol, tools/ports.py): the gate is any
    tool's; the handler is `call_client(tool_id, call_id, arguments, cancelled)`, which asks
    the client. No entry module, no effects, no panels (yet), no summarize."""

    identity: str  # acp:NAME
    name: str  # the model-facing alias
    description: str
    input_schema: dict[str, Any]
    validator: Any
    tool_id: str  # the client's id for it (`toolId`)
    call_client: Callable[[str, str, Any, asyncio.Event], Awaitable[Any]]
    declarations: list[Any] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    condition_sources: list[str] = field(default_factory=lambda: ["arguments"])
    effects_schema: ClassVar[None] = None
    effects_validator: ClassVar[None] = None
    has_effects: ClassVar[bool] = False
    has_validate_args: ClassVar[bool] = False
    has_preview: ClassVar[bool] = False
    has_summary: ClassVar[bool] = False
    is_mcp: ClassVar[bool] = False
    available: ClassVar[bool] = True
    loaded: ClassVar[bool] = True  # nothing to import
    implicit_panels: ClassVar[bool] = False
    label: ClassVar[str | None] = None

    def module(self) -> None:
        """No entry module: the client runs the call."""
        return None

    def handler(self) -> Callable[[Any, Any], Awaitable[Any]]:
        return self.call

    async def call(self, arguments: Any, ctx: Any) -> Any:
        return await self.call_client(self.tool_id, ctx.tool_call_id, arguments, ctx.cancelled)

    def definition(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "input_schema": self.input_schema}


def session_agent(agent: Any) -> Any:
    """A copy of the agent whose tool list a session may extend (client tools are the
    session's own, never another session's)."""
    return replace(agent, tools=ExposedTools(list(agent.tools.tools)))


def alias(name: str, tool_id: str) -> str:
    """The model-facing name: `raw_<name sanitised, ≤ 51>_<sha256(toolId)[:12]>`."""
    clean = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:51]
    return f"raw_{clean}_{hashlib.sha256(tool_id.encode()).hexdigest()[:12]}"


def register(session: Any, params: dict[str, Any], call_client) -> dict[str, Any]:
    """Add the client's tool to `session.agent`; `call_client(tool_id, call_id, arguments,
    cancelled)` runs it. Raises Refused."""
    from . import codes

    name = params.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise Refused(codes.INVALID_PARAMS, "name: must be 1-64 letters, digits, _ . or -")
    description = params.get("description", "")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
        raise Refused(codes.INVALID_PARAMS,
                      f"description: must be a string of at most {MAX_DESCRIPTION} characters")
    if params.get("panels"):
        raise Refused(codes.INVALID_PARAMS, "panels: client tools cannot declare panels yet")
    identity = f"acp:{name}"
    tools = session.agent.tools
    if identity in tools.by_identity:
        raise Refused(codes.DUPLICATE, f"{identity} is already registered")
    schema = params.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise Refused(codes.INVALID_PARAMS, 'inputSchema: must be a schema of "type": "object"')
    try:
        validator = build_validator(schema, where=["inputSchema"], file=None)
    except ConfigError as err:
        raise Refused(codes.INVALID_PARAMS, err.line()) from None
    tool_id = str(uuid.uuid4())
    tool = AcpClientTool(identity=identity, name=alias(name, tool_id), description=description,
                         input_schema=schema, validator=validator, tool_id=tool_id,
                         call_client=call_client)
    _check_rules(session.agent.rules, tool)
    session.agent.tools = ExposedTools([*tools.tools, tool])
    return {"toolId": tool_id, "alias": tool.name, "identity": identity}


def _check_rules(rules: Any, spec: Tool) -> None:
    """Conditional rules that match the new identity must bind to its schema, as at load."""
    from ..policy.binding import check_binding
    from . import codes

    for rule in rules.rules:
        if rule.when is not None and rule.match.matches(spec.identity):
            try:
                check_binding(rule.when, spec, where=["tools", "rules", rule.index, "when"])
            except ConfigError as err:
                raise Refused(codes.INVALID_PARAMS, f"inputSchema: {err.line()}") from None


async def run_on_client(conn: Any, session_id: str, tool_id: str, call_id: str,
                        arguments: Any, cancelled: asyncio.Event, *, can_cancel: bool) -> Any:
    """Send `_raw/tool/call` and turn the reply into a tool result."""
    params = {"sessionId": session_id, "toolId": tool_id, "invocationId": call_id,
              "arguments": arguments}
    try:
        reply = await asyncio.wait_for(conn.send_request("_raw/tool/call", params),
                                       CALL_TIMEOUT_S)
    except asyncio.CancelledError:
        if can_cancel:
            asyncio.ensure_future(_notify_cancel(conn, session_id, call_id))
        raise
    except asyncio.TimeoutError:
        return error_result(errors.CALLBACK_TIMEOUT, f"the client did not answer in "
                                                   f"{CALL_TIMEOUT_S:.0f} s")
    except Exception as err:  # an error reply, a closed connection
        return error_result(errors.CALLBACK_ERROR, f"the client failed: {err}")
    return client_result(reply)


async def _notify_cancel(conn: Any, session_id: str, call_id: str) -> None:
    try:
        await conn.send_notification("_raw/tool/cancel", {"sessionId": session_id,
                                                          "invocationId": call_id})
    except Exception:  # noqa: BLE001 — the client is gone: nothing to cancel
        pass


def client_result(reply: Any) -> Any:
    """`{isError, content: [text|json blocks]}` as a result; anything else is refused."""
    if not isinstance(reply, dict) or not isinstance(reply.get("content"), list) \
            or not isinstance(reply.get("isError", False), bool):
        return error_result(errors.CALLBACK_ERROR, "the client's reply is not {isError, content}")
    for i, block in enumerate(reply["content"]):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in CONTENT_TYPES:
            return error_result(errors.UNSUPPORTED_CONTENT,
                                f"content[{i}]: type {kind!r} is not supported")
    result = {"isError": reply.get("isError", False), "content": reply["content"]}
    try:
        normalize(result)  # a block without its text or value is the client's failure
    except TypeError as err:
        return error_result(errors.CALLBACK_ERROR, f"the client's reply: {err}")
    return result

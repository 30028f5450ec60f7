"""Raw's extension methods of the ACP agent, `_raw/*` (docs/acp.md): a mixin of
`raw_tui.acp.agent.RawAgent`, which gives `flags`, `conn`, `config`, `agent`, `version` and
`_initialized`, `_bridge`, `_idle_bridge`."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from ..protocol import commands as cmd
from ..protocol import errors
from . import codes, updates
from .codes import error
from .handshake import ClientFlags
from .inflight import in_flight

log = logging.getLogger("raw_tui.acp")


class ExtensionMethods:
    @in_flight
    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        handler = {"raw/panel/action": self._panel_action,
                   "raw/tool/register": self._register_tool,
                   "raw/runtime/info": self._runtime_info,
                   "raw/session/configure": self._configure,
                   "raw/session/compact": self._compact,
                   "raw/session/undo": self._undo}.get(method)
        if handler is None:
            from acp import RequestError

            raise RequestError.method_not_found(f"_{method}")
        self._initialized()
        return await handler(params)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("ignored notification _%s", method)

    async def _panel_action(self, params: dict[str, Any]) -> dict[str, Any]:
        """`_raw/panel/action {sessionId, panel, action, block?, item?}`: a declared tool
        action through the full dispatch (`source: user_action`)."""
        if not (self.flags and self.flags.panels_v2):
            raise error(codes.NOT_NEGOTIATED, "_raw/panel/action needs _meta.raw.panelsV2")
        bridge = self._bridge(_string(params, "sessionId"))
        command = cmd.PanelAction(panel=_string(params, "panel"),
                                  action=_string(params, "action"),
                                  block=_string(params, "block", optional=True),
                                  item=_string(params, "item", optional=True))
        if bridge.state != "idle":
            raise error(codes.BUSY, f"session {bridge.id} is busy")
        reply = await bridge.session.handle(command)
        await bridge.flush()
        if reply.draft is not None:
            raise error(codes.INVALID_PARAMS, "a prompt action runs in the client",
                        {"draft": reply.draft, "send": reply.send})
        if not reply.ok:
            code = reply.code or errors.TOOL_ERROR
            raise error(codes.ACTION_CODES.get(code, codes.UPSTREAM if code == errors.TOOL_ERROR
                                               else codes.INVALID_PARAMS),
                        reply.message or code, {"code": code})
        return {"operationId": uuid.uuid4().hex, "message": reply.message}

    async def _runtime_info(self, params: dict[str, Any]) -> dict[str, Any]:
        """`_raw/runtime/info {sessionId?}` (needs `runtimeInfo`): the agent, its limits and
        rules, and with a session its tools and MCP catalog (once its servers started)."""
        from .runtime_info import runtime_info
        from .tool_view import selectable

        if not (self.flags and self.flags.runtime_info):
            raise error(codes.NOT_NEGOTIATED, "_raw/runtime/info needs _meta.raw.runtimeInfo")
        _fields(params, ("sessionId",), "runtime info")
        if "sessionId" not in params:
            if self.config is None or self.agent is None:
                raise error(codes.INVALID_PARAMS, "sessionId: required here")
            return runtime_info(self.version, self.config, self.agent)
        bridge = self._bridge(_string(params, "sessionId"))
        await bridge.session.mcp_ready()
        await selectable(bridge)  # the client's MCP servers list their tools (the catalog)
        session = bridge.session
        return runtime_info(self.version, session.config, session.agent, session)

    async def _configure(self, params: dict[str, Any]) -> dict[str, Any]:
        """`_raw/session/configure {sessionId, tools}` (needs `sessionConfigure`; an idle
        session): the model sees exactly these tools from its next request on."""
        from .tool_view import configure, requested

        if not (self.flags and self.flags.session_configure):
            raise error(codes.NOT_NEGOTIATED,
                        "_raw/session/configure needs _meta.raw.sessionConfigure")
        _fields(params, ("sessionId", "tools"), "session configure")
        bridge = self._idle_bridge(_string(params, "sessionId"))
        reply = await configure(bridge, requested(params))
        log.info("session %s: tools %s (revision %d)", bridge.id, reply["tools"],
                 reply["contextRevision"])
        return reply

    async def _compact(self, params: dict[str, Any]) -> dict[str, Any]:
        """`_raw/session/compact {sessionId}` (needs `sessionCompact`; an idle session): the
        session's `/compact`, with Raw's progress thoughts; `{status, beforeBytes,
        afterBytes}`, status `compacted`, `noop` (nothing older than the kept turns) or
        `cancelled`; a failed summary request is -32007."""
        if not (self.flags and self.flags.session_compact):
            raise error(codes.NOT_NEGOTIATED,
                        "_raw/session/compact needs _meta.raw.sessionCompact")
        _fields(params, ("sessionId",), "session compact")
        bridge = self._idle_bridge(_string(params, "sessionId"))
        session = bridge.session
        before, tokens = session.context_size()
        bridge.say(updates.compacting(tokens))
        bridge.last_end = None
        reply = await session.handle(cmd.Compact())
        if not reply.ok:
            bridge.say(updates.compacted("cancelled"))
            await bridge.flush()
            raise error(codes.BUSY if reply.code == errors.BUSY else codes.UNKNOWN_SESSION,
                        reply.message or "the session cannot compact now")
        await session.wait_idle()
        end = bridge.last_end
        status = _compact_status(end)
        if status != "compacted":  # a compaction is said by its event (bridge)
            bridge.say(updates.compacted(status if status != "error" else "failed"))
        await bridge.flush()
        if status == "error":
            code = end.code if isinstance(end.code, str) else "error"
            message = end.message if isinstance(end.message, str) else code
            raise error(codes.UPSTREAM, f"compaction failed: {code}: {message}", {"code": code})
        return {"status": status, "beforeBytes": before, "afterBytes": session.context_size()[0]}

    async def _undo(self, params: dict[str, Any]) -> dict[str, Any]:
        """`_raw/session/undo {sessionId, turn?, dryRun?}` (an idle session): the files back
        to their state before turn `turn` (counted from 1; default the latest that changed
        files), docs/checkpoints.md. `{files: [{path, action, diff?}], unobservedTurns,
        turn?, message?}`; conflicts are listed, never overwritten from here."""
        from .undo import undo

        _fields(params, ("sessionId", "turn", "dryRun"), "session undo")
        bridge = self._idle_bridge(_string(params, "sessionId"))
        return await undo(bridge, params)

    async def _register_tool(self, params: dict[str, Any]) -> dict[str, Any]:
        """`_raw/tool/register {sessionId, name, description?, inputSchema}`: a tool the client
        runs, identity `acp:<name>`, through the whole gate."""
        from .client_tools import Refused, register, run_on_client
        from .tool_view import revise, visible

        flags = self.flags or ClientFlags()
        if not (flags.tool_register and flags.tool_call):
            raise error(codes.NOT_NEGOTIATED,
                        "_raw/tool/register needs _meta.raw.toolRegister and toolCall")
        bridge = self._bridge(_string(params, "sessionId"))
        if bridge.state != "idle":
            raise error(codes.BUSY, f"session {bridge.id} is busy")

        async def call_client(tool_id, call_id, arguments, cancelled):
            return await run_on_client(self.conn, bridge.id, tool_id, call_id, arguments,
                                       cancelled, can_cancel=flags.tool_cancel)

        before = visible(bridge.session)
        try:
            reply = register(bridge.session, params, call_client)
        except Refused as err:
            raise error(err.code, str(err)) from None
        reply["contextRevision"] = revise(bridge, before)
        log.info("session %s: registered %s as %s", bridge.id, reply["identity"],
                 reply["alias"])
        return reply


def _compact_status(end: Any) -> str:
    """A `/compact` turn's run_end as Raw's compaction status (`error`: it failed)."""
    if end is None or end.status == "cancelled":
        return "cancelled"
    if end.status != "completed":
        return "error"
    return "noop" if end.message == "nothing to compact" else "compacted"


def _string(params: dict[str, Any], key: str, *, optional: bool = False) -> Any:
    value = params.get(key) if isinstance(params, dict) else None
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise error(codes.INVALID_PARAMS, f"{key}: must be a non-empty string")
    return value


def _fields(params: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in params:
        if key not in allowed:
            raise error(codes.INVALID_PARAMS, f"{where}: unknown field {key}")

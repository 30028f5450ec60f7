"""The ACP agent: Raw's methods over raw-tui sessions (docs/acp.md, docs/acp.md).

`RawAgent` is the object the SDK's router calls, one method per ACP method. Sessions are
made by an `open_session(cwd, *, session_id, history, forms)` function (the command line
builds one from its options; tests give one with a scripted model), and driven only through
their facade: commands in, bus events out (`bridge.SessionBridge`).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import os
from typing import TYPE_CHECKING, Any, Callable

from acp import LoadSessionResponse, NewSessionResponse
from acp.schema import ListSessionsResponse, ResumeSessionResponse, SessionInfo

from ..protocol import commands as cmd
from ..protocol import errors
from . import codes
from .bridge import SessionBridge
from .client_mcp import client_servers
from .codes import error
from .extensions import ExtensionMethods
from .handshake import ClientFlags, FlagError, initialize_result, read_flags
from .inflight import in_flight

if TYPE_CHECKING:
    from ..panels.declaration import PanelDeclaration
    from ..session.state import SessionState

log = logging.getLogger("raw_tui.acp")

PAGE_SIZE = 20  # session/list

STOP_REASONS = {"completed": "end_turn", "max_steps": "max_turn_requests",
                "cancelled": "cancelled"}


class RawAgent(ExtensionMethods):
    def __init__(self, open_session: Callable[..., Any], *, store: Any, version: str,
                 flags: ClientFlags | None = None, config: Any = None,
                 agent: Any = None) -> None:
        self.open_session = open_session
        self.config, self.agent = config, agent  # what `_raw/runtime/info` describes
        self.store = store
        self.version = version
        self.conn: Any = None
        self.flags = flags  # set by `initialize` (or by the early handshake)
        self.bridges: dict[str, SessionBridge] = {}
        self.inflight: set[asyncio.Task] = set()  # requests being answered
        self.loading: set[str] = set()  # sessions being loaded or resumed: busy meanwhile

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # initialize ------------------------------------------------------------------------------
    @in_flight
    async def initialize(self, protocol_version: int, client_capabilities: Any = None,
                         client_info: Any = None, **kwargs: Any) -> dict[str, Any]:
        offered = kwargs.get("raw")
        if offered is None and client_capabilities is not None:
            offered = (client_capabilities.field_meta or {}).get("raw")
        try:
            self.flags = read_flags(offered)
        except FlagError as err:
            raise error(codes.INVALID_PARAMS, str(err)) from None
        log.info("initialize: client %s, flags %s",
                 getattr(client_info, "name", "?"), self.flags)
        return initialize_result(self.version)

    # sessions --------------------------------------------------------------------------------
    @in_flight
    async def new_session(self, cwd: str, mcp_servers: list | None = None,
                          additional_directories: list[str] | None = None,
                          **kwargs: Any) -> NewSessionResponse:
        self._initialized()
        check_cwd(cwd)
        servers = client_servers(mcp_servers)
        bridge = await self._open(cwd, servers=servers)
        return NewSessionResponse(session_id=bridge.id)

    @in_flight
    async def load_session(self, cwd: str, session_id: str, mcp_servers: list | None = None,
                           additional_directories: list[str] | None = None,
                           **kwargs: Any) -> LoadSessionResponse:
        await self._reopen(cwd, session_id, mcp_servers, replay=True)
        return LoadSessionResponse()

    @in_flight
    async def resume_session(self, session_id: str, cwd: str,
                             additional_directories: list[str] | None = None,
                             mcp_servers: list | None = None,
                             **kwargs: Any) -> ResumeSessionResponse:
        await self._reopen(cwd, session_id, mcp_servers, replay=False)
        return ResumeSessionResponse()

    @in_flight
    async def delete_session(self, session_id: str, **kwargs: Any) -> dict[str, Any]:
        """`session/delete`: remove a saved session from the history (as `raw-tui sessions
        delete`). One open in this connection, or live in a detached host, is busy (-32002):
        Raw deletes only an inactive session."""
        self._initialized()
        if self.store.get(session_id) is None:
            raise error(codes.UNKNOWN_SESSION, f"unknown session {session_id}")
        if session_id in self.bridges or session_id in self.loading:
            raise error(codes.BUSY, f"session {session_id} is open in this connection")
        if session_id in await asyncio.to_thread(_hosted):  # probes sockets: off the loop
            raise error(codes.BUSY, f"session {session_id} is live in a detached host")
        self.store.delete(session_id)
        log.info("deleted session %s", session_id)
        return {}

    @in_flight
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> ListSessionsResponse:
        self._initialized()
        if cursor and not (cursor.isascii() and cursor.isdigit()):
            raise error(codes.INVALID_PARAMS, f"cursor: not a cursor of this agent: {cursor!r}")
        start = int(cursor) if cursor else 0
        rows = self.store.list(os.path.realpath(cwd) if cwd else None)
        page = rows[start:start + PAGE_SIZE]
        sessions = [SessionInfo(session_id=row.id, cwd=row.cwd, title=row.title or None,
                                updated_at=_iso(row.updated_at)) for row in page]
        more = start + PAGE_SIZE < len(rows)
        return ListSessionsResponse(sessions=sessions,
                                    next_cursor=str(start + PAGE_SIZE) if more else None)

    async def _reopen(self, cwd: str, session_id: str, mcp_servers: list | None, *,
                      replay: bool) -> None:
        self._initialized()
        check_cwd(cwd)
        servers = client_servers(mcp_servers)
        row = self.store.get(session_id)
        if row is None:
            raise error(codes.UNKNOWN_SESSION, f"unknown session {session_id}")
        if os.path.realpath(row.cwd) != os.path.realpath(cwd):
            raise error(codes.INVALID_PARAMS,
                        f"cwd: session {session_id} belongs to {row.cwd}, not {cwd}")
        old = self.bridges.get(session_id)
        if session_id in self.loading or (old is not None and old.state != "idle"):
            raise error(codes.BUSY, f"session {session_id} is busy")
        self.loading.add(session_id)
        try:
            if old is not None:
                await self._close(old)
            history = self.store.events(session_id)
            await self._open(row.cwd, session_id=session_id, history=history, replay=replay,
                             servers=servers)
        finally:
            self.loading.discard(session_id)

    async def _open(self, cwd: str, *, session_id: str | None = None,
                    history: list | None = None, replay: bool = False,
                    servers: dict | None = None) -> SessionBridge:
        """A session over `cwd` with the client's MCP `servers` added (hidden until the
        agent selects one of their tools); every write_file call carries its diff."""
        flags = self.flags or ClientFlags()
        try:
            session = self.open_session(cwd, session_id=session_id, history=history,
                                        forms=flags.interactions,
                                        mcp_servers=servers or None, previews=True)
        except ValueError as err:  # duplicate MCP server: NAME (one the config has)
            raise error(codes.INVALID_PARAMS, f"mcpServers: {err}") from None
        bridge = SessionBridge(session, self.conn, flags,
                               lambda panel: _declaration(session, panel))
        self.bridges[bridge.id] = bridge
        if history:
            if replay:
                bridge.replay(history)
            else:
                bridge.restore_panels(history)
                bridge.send_current_panels()
        await session.open()  # SessionStart hooks: their receipts go before the reply
        await bridge.flush()
        return bridge

    # turns -------------------------------------------------------------------------------------
    @in_flight
    async def prompt(self, prompt: list, session_id: str, **kwargs: Any) -> dict[str, Any]:
        bridge = self._bridge(session_id)
        text = prompt_text(prompt)
        bridge.last_end = None
        reply = await bridge.session.handle(cmd.Prompt(text=text))
        if not reply.ok:
            code = codes.BUSY if reply.code == errors.BUSY else codes.UNKNOWN_SESSION
            raise error(code, reply.message or "the session cannot take a prompt")
        await bridge.session.wait_idle()
        await bridge.flush()
        if bridge.delivery_error is not None:
            raise error(codes.UPSTREAM, f"update delivery failed: {bridge.delivery_error}")
        end = bridge.last_end
        if end is None:  # /clear: not a turn
            return {"stopReason": "end_turn"}
        status = end.status
        if status == "error":
            code = end.code if isinstance(end.code, str) else "error"
            message = end.message if isinstance(end.message, str) else code
            raise error(codes.UPSTREAM, f"{code}: {message}", {"code": code})
        reply: dict[str, Any] = {"stopReason": STOP_REASONS[status]}
        if status == "max_steps":
            reply["_meta"] = {"raw": {"code": end.code}}
        return reply

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        bridge = self.bridges.get(session_id)
        if bridge is not None:
            await bridge.session.handle(cmd.Cancel())

    # helpers -----------------------------------------------------------------------------
    def _initialized(self) -> None:
        if self.flags is None:
            raise error(codes.INVALID_REQUEST, "initialize first")

    def _idle_bridge(self, session_id: str) -> SessionBridge:
        bridge = self._bridge(session_id)
        if not bridge.idle:
            raise error(codes.BUSY, f"session {bridge.id} is busy")
        return bridge

    def _bridge(self, session_id: str) -> SessionBridge:
        self._initialized()
        if session_id in self.loading:
            raise error(codes.BUSY, f"session {session_id} is busy loading its history")
        bridge = self.bridges.get(session_id)
        if bridge is None:
            raise error(codes.UNKNOWN_SESSION, f"unknown session {session_id}")
        return bridge

    async def _close(self, bridge: SessionBridge) -> None:
        self.bridges.pop(bridge.id, None)
        await bridge.session.handle(cmd.Quit())
        await bridge.flush()
        await bridge.close()

    async def close(self, grace: float = 5.0) -> None:
        """The client went away: running turns are cancelled, requests in flight get their
        replies (within `grace` seconds), then every session is closed (SessionEnd hooks)."""
        for bridge in list(self.bridges.values()):
            await bridge.session.handle(cmd.Cancel())
        pending = {t for t in self.inflight if t is not asyncio.current_task()}
        if pending:
            await asyncio.wait(pending, timeout=grace)
        await asyncio.gather(*(self._close(b) for b in list(self.bridges.values())),
                             return_exceptions=True)


def _hosted() -> set[str]:
    """The sessions live in a detached host (`raw-tui attach`) of this user."""
    from ..host.paths import live_sessions

    try:
        return set(live_sessions())
    except OSError:
        return set()


# checks -------------------------------------------------------------------------------------

def check_cwd(cwd: str) -> None:
    if not os.path.isabs(cwd):
        raise error(codes.INVALID_PARAMS, f"cwd: must be an absolute path: {cwd}")
    if not os.path.isdir(cwd):
        raise error(codes.INVALID_PARAMS, f"cwd: not an existing directory: {cwd}")


def prompt_text(blocks: list) -> str:
    """The prompt as text: text blocks as they are, a resource_link as a line naming it
    (never fetched). Anything else is -32602 `unsupported prompt block: TYPE`."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            name = block.name or block.uri
            parts.append(f"[{name}]({block.uri})")
        else:
            raise error(codes.INVALID_PARAMS, f"unsupported prompt block: {kind}")
    text = "\n".join(parts)
    if not text.strip():
        raise error(codes.INVALID_PARAMS, "prompt: empty")
    return text


def _iso(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc).isoformat()


def _declaration(session: SessionState, panel: str) -> PanelDeclaration | None:
    """A panel's declaration from the agent's tools (config, not session state)."""
    owner, _, panel_id = panel.rpartition("#")
    tool = session.agent.tools.by_identity.get(owner)
    if tool is None:
        return None
    declaration = next((d for d in tool.declarations if d.id == panel_id), None)
    if declaration is not None and declaration.acp_plan and \
            panel != session.plan_panel:
        import msgspec  # only the first acp_plan panel mirrors the plan (panels/declaration.py)

        declaration = msgspec.structs.replace(declaration, acp_plan=False)
    return declaration


def connect(agent: RawAgent, writer: Any, reader: Any = None, *, listening: bool = True):
    """The SDK's JSON-RPC connection routing Raw's methods to `agent` (over a byte stream
    pair, or one message transport when `reader` is None). Updates go out through it as wire
    JSON, without the SDK's per-message models. What is not a JSON-RPC message is answered
    before the router sees it (raw_tui.acp.frames)."""
    from acp.connection import Connection

    from acp import RequestError
    from pydantic import ValidationError

    from .frames import checked

    router = _router(agent)

    async def handler(method: str, params: Any, is_notification: bool) -> Any:
        try:
            return await router(method, params, is_notification)
        except (RequestError, ValidationError) as err:  # answered for a request (-32602
            if not is_notification:  # for bad params); a notification has no answer, so
                raise                # one line in the log (the SDK logs a traceback)
            why = "invalid params" if isinstance(err, ValidationError) else str(err)
            log.warning("notification %s refused: %s", method, why)
            return None

    conn = Connection(handler, checked(writer, reader), listening=listening)
    agent.on_connect(conn)
    return conn


def _router(agent: RawAgent):
    """The SDK's agent router, plus `session/delete`: SDK 0.12.1 has its request schema but
    routes no method to it, so it is added through the router's own `route_request`."""
    from acp.agent.router import build_agent_router
    from acp.meta import AGENT_METHODS
    from acp.schema import DeleteSessionRequest
    from acp.utils import normalize_result

    router = build_agent_router(agent, use_unstable_protocol=True)
    router.route_request(AGENT_METHODS["session_delete"], DeleteSessionRequest, agent,
                         "delete_session", adapt_result=normalize_result)
    return router

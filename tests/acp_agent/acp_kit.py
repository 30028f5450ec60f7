"""An in-process ACP client for tests: the SDK's memory transport, a recording client, and
`raw_tui.acp.agent.RawAgent` over sessions with a recording scripted model."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import acp
from acp._transport import memory_transport_pair
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from raw_tui.acp.agent import RawAgent, connect
from raw_tui.acp.client_tools import session_agent
from raw_tui.session.session import Session
from raw_tui.session.store import HistoryStore
from tests.engine.session_kit import RecordingModel, agent_config


@dataclass
class RecordingClient:
    """Records every notification and question; answers permission with `permission`
    (a callable: request -> "allow" | "deny" | "cancelled" | an awaitable of one) and forms
    with `form` (request params -> reply dict)."""

    permission: Callable[[Any], Any] = lambda request: "allow"
    form: Callable[[dict], Any] = lambda params: {"action": "cancel"}
    tool: Callable[[dict], Any] = lambda params: {"isError": False, "content": [
        {"type": "text", "text": "done by the client"}]}
    updates: list[Any] = field(default_factory=list)  # SessionNotification.update, in order
    permissions: list[Any] = field(default_factory=list)  # RequestPermissionRequest kwargs
    ext_notifications: list[tuple[str, dict]] = field(default_factory=list)
    ext_requests: list[tuple[str, dict]] = field(default_factory=list)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, options, session_id, tool_call, **kwargs):
        self.permissions.append({"options": options, "session_id": session_id,
                                 "tool_call": tool_call})
        answer = self.permission(tool_call)
        if inspect.isawaitable(answer):
            answer = await answer
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected",
                                                                option_id=answer))

    async def ext_method(self, method: str, params: dict) -> dict:
        self.ext_requests.append((method, params))
        answer = (self.tool if method == "raw/tool/call" else self.form)(params)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer

    async def ext_notification(self, method: str, params: dict) -> None:
        self.ext_notifications.append((method, params))

    # what tests look at
    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    def statuses(self, call_id: str) -> list[str]:
        return [u.status for u in self.updates
                if u.session_update in ("tool_call", "tool_call_update")
                and u.tool_call_id == call_id and u.status is not None]


@dataclass
class Rig:
    conn: Any  # the client side: initialize, new_session, prompt, …
    client: RecordingClient
    agent: RawAgent
    work: Path
    models: list[RecordingModel]

    async def start(self, raw: dict | None = None) -> str:
        """initialize (with `_meta.raw` flags) and session/new; the session id."""
        await self.conn.initialize(protocol_version=acp.PROTOCOL_VERSION,
                                   **({"raw": raw} if raw is not None else {}))
        response = await self.conn.new_session(cwd=str(self.work), mcp_servers=[])
        return response.session_id

    async def prompt(self, session_id: str, text: str):
        return await self.conn.prompt(session_id=session_id, prompt=[acp.text_block(text)])

    def session(self, session_id: str) -> Session:
        return self.agent.bridges[session_id].session


@contextlib.asynccontextmanager
async def rig(tmp_path: Path, lines: list[Any] | Callable[[], list[Any]] = (), *,
              client: RecordingClient | None = None, config=None, store=None,
              delay_ms: int = 0, **agent_kw):
    """A RawAgent served over the SDK's memory transport, and a client connected to it. Each
    session gets a fresh scripted model over `lines`."""
    config = config or agent_config(tmp_path, **agent_kw)
    store = store or HistoryStore(tmp_path / "history.sqlite3")
    work = tmp_path / "work"
    work.mkdir(parents=True, exist_ok=True)
    models: list[RecordingModel] = []

    def open_session(cwd, *, session_id=None, history=None, forms=False, mcp_servers=None,
                     previews=False):
        model = RecordingModel(list(lines() if callable(lines) else lines), delay_ms=delay_ms)
        models.append(model)
        return Session(config, session_agent(config.agent()), cwd=cwd, store=store,
                       interactive=True,
                       session_id=session_id, history=history, provider=model, forms=forms,
                       mcp_servers=mcp_servers, previews=previews)

    agent = RawAgent(open_session, store=store, version="test", config=config,
                     agent=config.agent())
    client = client or RecordingClient()
    agent_end, client_end = memory_transport_pair()
    agent_conn = connect(agent, agent_end)
    conn = acp.connect_to_agent(client, client_end, use_unstable_protocol=True)
    try:
        yield Rig(conn, client, agent, work, models)
    finally:
        await agent.close()
        await conn.close()
        await agent_conn.close()
        store.close()


async def delete_session(conn: Any, session_id: str) -> Any:
    """`session/delete` (the SDK's client has no method for it in 0.12.1)."""
    return await conn._conn.send_request("session/delete", {"sessionId": session_id})


async def error_of(awaitable) -> Any:
    """The RequestError `awaitable` raises (its `message` set to the text)."""
    import pytest
    from acp import RequestError

    with pytest.raises(RequestError) as caught:
        await awaitable
    caught.value.message = str(caught.value)
    return caught.value


class FailingModel:
    """A provider whose every request fails (a 500)."""

    async def stream(self, messages, tools, *, system=None):
        from raw_tui.models.base import ModelError

        raise ModelError("the provider answered 500")
        yield  # pragma: no cover


TOOL_FLAGS = {"toolRegister": True, "toolCall": True, "toolCancel": True}
OPEN_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}},
               "required": ["path"]}


async def register(r: Rig, sid: str, name: str = "open_editor", schema: dict | None = None):
    """`_raw/tool/register` of a client tool `name`."""
    return await r.conn.ext_method("raw/tool/register", {
        "sessionId": sid, "name": name, "description": "Open a file in the editor.",
        "inputSchema": schema or OPEN_SCHEMA})


def client_config(tmp_path: Path, use: list[str], *, rules=None, servers=None):
    """A config loaded as `raw-tui acp` loads it: a selected tool may name a server the
    client supplies."""
    from raw_tui.config import load_config
    from tests.mcpgate.mcp_kit import mcp_config

    path = mcp_config(tmp_path, servers or {}, use, rules=rules)
    return load_config(str(path), cwd=tmp_path, client_mcp=True)

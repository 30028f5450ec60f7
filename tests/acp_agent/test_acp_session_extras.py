"""`_raw/session/configure`, `_raw/session/compact` and `session/delete` (docs/acp.md,
§2.7) over the SDK's memory transport with the recording client: success and every error."""

from __future__ import annotations

import asyncio
import sys

import acp
from acp.schema import McpServerStdio

from raw_tui.protocol import commands as cmd
from raw_tui.mcp.config import alias
from tests.acp_agent.acp_kit import (TOOL_FLAGS, FailingModel, RecordingClient, client_config,
                                 delete_session, error_of, register, rig)
from tests.mcpgate.mcp_kit import FIXTURE, call_line

CONFIGURE = {"sessionConfigure": True}
COMPACT = {"sessionCompact": True}
SLOW = {"tool_calls": [{"name": "bash", "id": "slow", "arguments": {
    "commands": [{"command": "sleep 5"}]}}]}


async def configure(r, sid, tools, **extra):
    return await r.conn.ext_method("raw/session/configure",
                                   {"sessionId": sid, "tools": tools, **extra})


async def compact(r, sid, **extra):
    return await r.conn.ext_method("raw/session/compact", {"sessionId": sid, **extra})


async def running(r, sid, text="slow"):
    """A prompt whose turn runs (a bash sleeping), once the session says so."""
    turn = asyncio.ensure_future(r.prompt(sid, text))
    while r.agent.bridges[sid].state != "running":
        await asyncio.sleep(0.01)
    return turn


def model_tools(model, request=-1) -> list[str]:
    return [tool.name for tool in model.requests[request].tools]


# -- _raw/session/configure ---------------------------------------------------------------------

async def test_configure_needs_session_configure(tmp_path):
    async with rig(tmp_path) as r:
        sid = await r.start(raw={"runtimeInfo": True})
        err = await error_of(configure(r, sid, ["read_file"]))
    assert err.code == -32003 and "sessionConfigure" in err.message


async def test_configure_hides_and_shows_tools_for_the_next_request(tmp_path):
    hidden_call = {"tool_calls": [{"name": "bash", "id": "c_hidden", "arguments": {
        "commands": [{"command": "echo should-not-run"}]}}]}
    lines = [hidden_call, {"text": "ok"}, {"text": "both again"}]
    async with rig(tmp_path, lines, use=["builtin/read_file", "builtin/bash"]) as r:
        sid = await r.start(raw=CONFIGURE)
        reply = await configure(r, sid, ["read_file"])
        assert reply == {"contextRevision": 2, "tools": ["read_file"]}
        assert await configure(r, sid, ["read_file"]) == reply  # nothing changed: same revision
        await r.prompt(sid, "try bash")
        assert model_tools(r.models[0], 0) == ["read_file"]
        # a hidden tool is not dispatched either
        [failed] = [u for u in r.client.of("tool_call_update") if u.status == "failed"]
        assert failed.raw_output["code"] == "tool_not_exposed"
        # shown again, in tools.use order whatever order the client gives
        again = await configure(r, sid, ["bash", "read_file"])
        assert again == {"contextRevision": 3, "tools": ["read_file", "bash"]}
        await r.prompt(sid, "again")
        assert model_tools(r.models[0]) == ["read_file", "bash"]
        # none at all is a selection too
        assert await configure(r, sid, []) == {"contextRevision": 4, "tools": []}


async def test_configure_errors_change_nothing(tmp_path):
    rules = [{"match": "builtin/write_file", "effect": "deny"}]
    async with rig(tmp_path, [SLOW], use=["builtin/read_file", "builtin/bash",
                                          "builtin/write_file"], rules=rules) as r:
        sid = await r.start(raw=CONFIGURE)
        unknown = await error_of(configure(r, sid, ["read_file", "nope", "also_nope"]))
        assert (unknown.code, unknown.message) == (-32004, "unknown tools: nope, also_nope")
        assert unknown.data == {"unknown": ["nope", "also_nope"], "denied": []}
        denied = await error_of(configure(r, sid, ["write_file"]))
        assert denied.code == -32004
        assert denied.message == "tool write_file is denied by a rule (builtin/write_file)"
        assert (await error_of(configure(r, "s_nope", ["read_file"]))).code == -32001
        assert (await error_of(configure(r, sid, "read_file"))).code == -32602
        assert (await error_of(configure(r, sid, [""]))).code == -32602
        extra = await error_of(configure(r, sid, ["read_file"], verbose=True))
        assert (extra.code, extra.message) == (-32602, "session configure: unknown field verbose")
        missing = await error_of(r.conn.ext_method("raw/session/configure", {"tools": []}))
        assert missing.code == -32602
        turn = await running(r, sid)
        busy = await error_of(configure(r, sid, ["read_file"]))
        assert busy.code == -32002
        await r.conn.cancel(session_id=sid)
        await turn
        # every refusal left the model's tools as they were
        assert [t.name for t in r.session(sid).agent.model_tools()] == ["read_file", "bash"]


async def test_configure_shows_a_client_mcp_tool_hidden_until_selected(tmp_path):
    """A client server's tools are listed in the runtime catalog (the server is started to
    list them) and reach the model only once selected, then through the whole gate."""
    config = client_config(tmp_path, ["builtin/read_file"],
                           rules=[{"match": "mcp/client/echo", "effect": "ask"}])
    client = RecordingClient(permission=lambda call: "allow")
    echo = alias("client", "echo")
    lines = [{"text": "no mcp yet"}, call_line("client", "echo", {"value": "hi"}),
             {"text": "done"}]
    server = McpServerStdio(name="client", command=sys.executable, args=[FIXTURE], env=[])
    async with rig(tmp_path, lines, client=client, config=config) as r:
        await r.conn.initialize(protocol_version=acp.PROTOCOL_VERSION,
                                raw={**CONFIGURE, "runtimeInfo": True})
        sid = (await r.conn.new_session(cwd=str(r.work), mcp_servers=[server])).session_id
        await r.prompt(sid, "first")
        assert model_tools(r.models[0]) == ["read_file"]
        info = await r.conn.ext_method("raw/runtime/info", {"sessionId": sid})
        catalog = {t["alias"]: t["exposed"] for t in info["mcpCatalog"]}
        assert catalog[echo] is False
        reply = await configure(r, sid, ["read_file", echo])
        assert reply == {"contextRevision": 2, "tools": ["read_file", echo]}
        assert (await r.prompt(sid, "echo")).stop_reason == "end_turn"
        assert model_tools(r.models[0], 1) == ["read_file", echo]
        [request] = client.permissions  # the ask rule bound to it asked
        assert request["tool_call"].field_meta["raw"]["identity"] == "mcp/client/echo"
        [done] = [u for u in client.of("tool_call_update") if u.status == "completed"]
        assert "hi" in str(done.raw_output)
        info = await r.conn.ext_method("raw/runtime/info", {"sessionId": sid})
        assert {t["alias"]: t["exposed"] for t in info["mcpCatalog"]}[echo] is True


async def test_a_client_server_that_cannot_list_its_tools_is_said_once(tmp_path):
    config = client_config(tmp_path, ["builtin/read_file"])
    server = McpServerStdio(name="broken", command=sys.executable, args=[FIXTURE],
                            env=[acp.schema.EnvVariable(name="MCP_MODE", value="crash")])
    async with rig(tmp_path, config=config) as r:
        await r.conn.initialize(protocol_version=acp.PROTOCOL_VERSION,
                                raw={**CONFIGURE, "runtimeInfo": True})
        sid = (await r.conn.new_session(cwd=str(r.work), mcp_servers=[server])).session_id
        info = await r.conn.ext_method("raw/runtime/info", {"sessionId": sid})
        assert info["mcpCatalog"] == []
        err = await error_of(configure(r, sid, [alias("broken", "echo")]))
        assert err.code == -32004 and alias("broken", "echo") in err.message
        await r.agent.bridges[sid].flush()
    warnings = [u.content.text for u in r.client.of("agent_thought_chunk")
                if u.content.text.startswith("Warning: ")]
    assert len(warnings) == 1 and "broken" in warnings[0] and "not listed" in warnings[0]


async def test_a_registered_client_tool_is_shown_and_can_be_hidden(tmp_path):
    async with rig(tmp_path, use=["builtin/read_file"]) as r:
        sid = await r.start(raw={**TOOL_FLAGS, **CONFIGURE})
        registered = await register(r, sid)
        assert registered["contextRevision"] == 2
        reply = await configure(r, sid, ["read_file"])
        assert reply == {"contextRevision": 3, "tools": ["read_file"]}
        reply = await configure(r, sid, [registered["alias"]])
        assert reply == {"contextRevision": 4, "tools": [registered["alias"]]}


# -- _raw/session/compact -----------------------------------------------------------------------

async def test_compact_needs_session_compact(tmp_path):
    async with rig(tmp_path) as r:
        sid = await r.start(raw=CONFIGURE)
        err = await error_of(compact(r, sid))
    assert err.code == -32003 and "sessionCompact" in err.message


async def test_compact_summarises_with_progress_thoughts(tmp_path):
    lines = [{"text": "first answer"}, {"text": "THE SUMMARY"}, {"text": "after"}]
    async with rig(tmp_path, lines, compact={"keep_turns": 0}) as r:
        sid = await r.start(raw=COMPACT)
        await r.prompt(sid, "hello")
        size, tokens = r.session(sid).context_size()
        before = len(r.client.updates)
        reply = await compact(r, sid)
        assert reply == {"status": "compacted", "beforeBytes": size,
                         "afterBytes": r.session(sid).context_size()[0]}
        thoughts = [u.content.text for u in r.client.updates[before:]
                    if u.session_update == "agent_thought_chunk"]
        assert thoughts == [f"Compacting context ({tokens} estimated input tokens).\n",
                            "Context compact compacted.\n"]
        # the next request starts from the summary
        await r.prompt(sid, "go on")
        first = r.models[0].requests[-1].messages[0].text
        assert first.endswith("THE SUMMARY") and "hello" not in str(r.models[0].requests[-1])
        # nothing older than the kept turns: a noop, said as Raw says it
        before = len(r.client.updates)
        await r.session(sid).handle(cmd.Clear())
        await r.session(sid).wait_idle()
        noop = await compact(r, sid)
        assert noop["status"] == "noop"
        assert r.client.text("agent_thought_chunk").endswith("Context compact noop.\n")


async def test_an_automatic_compaction_mid_turn_is_said(tmp_path):
    """The agent's `compact.trigger_tokens` compacts before a request: the client hears it."""
    from tests.engine.session_kit import RecordingModel

    lines = [{"text": "one"}, {"text": "THE SUMMARY"}, {"text": "two"}]
    async with rig(tmp_path, compact={"trigger_tokens": 100, "keep_turns": 0}) as r:
        sid = await r.start()
        model = r.session(sid).provider = RecordingModel(lines, usage={0: (1000, 5)})
        await r.prompt(sid, "first")
        assert r.client.text("agent_thought_chunk") == ""
        assert (await r.prompt(sid, "second")).stop_reason == "end_turn"
        assert r.client.text("agent_thought_chunk") == "Context compact compacted.\n"
        assert model.requests[-1].messages[0].text.endswith("THE SUMMARY")


async def test_compact_errors(tmp_path):
    async with rig(tmp_path, [SLOW], use=["builtin/bash"], compact={"keep_turns": 0}) as r:
        sid = await r.start(raw=COMPACT)
        assert (await error_of(compact(r, "s_nope"))).code == -32001
        extra = await error_of(compact(r, sid, keep=1))
        assert (extra.code, extra.message) == (-32602, "session compact: unknown field keep")
        turn = await running(r, sid)
        assert (await error_of(compact(r, sid))).code == -32002
        await r.conn.cancel(session_id=sid)
        await turn
        # the summary request fails: -32007, and the context is as it was
        r.session(sid).provider = FailingModel()
        kept = r.session(sid).context_size()
        failed = await error_of(compact(r, sid))
        assert failed.code == -32007 and failed.data == {"code": "model_error"}
        assert "compaction failed" in failed.message
        assert r.client.text("agent_thought_chunk").endswith("Context compact failed.\n")
        assert r.session(sid).context_size() == kept
        # a cancel while the summary is written: cancelled
        r.session(sid).provider = _StuckModel()
        pending = asyncio.ensure_future(compact(r, sid))
        while r.agent.bridges[sid].state != "running":
            await asyncio.sleep(0.01)
        await r.conn.cancel(session_id=sid)
        assert (await pending)["status"] == "cancelled"
        assert r.client.text("agent_thought_chunk").endswith("Context compact cancelled.\n")


class _StuckModel:
    async def stream(self, messages, tools, *, system=None):
        await asyncio.sleep(3600)
        yield  # pragma: no cover


# -- session/delete -----------------------------------------------------------------------------

async def test_delete_removes_an_inactive_saved_session(tmp_path):
    async with rig(tmp_path, [{"text": "hi"}]) as r:
        early = await error_of(delete_session(r.conn, "s_nope"))
        assert early.code == -32600  # initialize first
        sid = await r.start()
        await r.prompt(sid, "hello")
        # open in this connection: busy, as Raw (it deletes only an inactive session)
        busy = await error_of(delete_session(r.conn, sid))
        assert (busy.code, busy.message) == (-32002, f"session {sid} is open in this connection")
        await r.agent._close(r.agent.bridges[sid])
        assert await delete_session(r.conn, sid) == {}
        assert r.agent.store.get(sid) is None and r.agent.store.events(sid) == []
        assert (await r.conn.list_sessions(cwd=str(r.work))).sessions == []
        gone = await error_of(r.conn.load_session(cwd=str(r.work), session_id=sid,
                                                  mcp_servers=[]))
        assert gone.code == -32001
        again = await error_of(delete_session(r.conn, sid))
        assert (again.code, again.message) == (-32001, f"unknown session {sid}")
        bad = await error_of(r.conn._conn.send_request("session/delete", {}))
        assert bad.code == -32602


async def test_delete_refuses_a_session_live_in_a_detached_host(tmp_path, monkeypatch):
    """A session a detached host runs (`raw-tui attach`) keeps writing its history: busy."""
    import os
    import shutil
    import tempfile

    from raw_tui.host.paths import socket_path
    from raw_tui.host.server import SessionHost
    from raw_tui.session.store import HistoryStore
    from tests.engine.session_kit import make_session

    runtime = tempfile.mkdtemp(prefix="rt", dir="/tmp")  # socket paths stay short
    os.chmod(runtime, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    store = HistoryStore(tmp_path / "history.sqlite3")
    hosted = make_session(tmp_path / "h", [], interactive=True, store=store)
    host = SessionHost(hosted.session, idle_timeout_s=3600)
    try:
        async with rig(tmp_path, store=store) as r:  # the rig closes the store last
            await host.start(socket_path(hosted.session.session_id))
            try:
                await r.start()
                sid = hosted.session.session_id
                busy = await error_of(delete_session(r.conn, sid))
                assert (busy.code, busy.message) == (
                    -32002, f"session {sid} is live in a detached host")
                assert store.get(sid) is not None
            finally:
                await host.stop("test")
    finally:
        shutil.rmtree(runtime, ignore_errors=True)

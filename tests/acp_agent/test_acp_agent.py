"""Issue 14: `raw-tui acp` in process, over the SDK's memory transport with a recording client:
every method, every update kind, every error code, permission allow/deny/cancelled, cancel
mid-turn, plans from the todo panel, panels and forms through the `_raw/*` extensions."""

from __future__ import annotations

import asyncio
import json
import os

import acp
import pytest
from acp.schema import AgentCapabilities  # noqa: F401 — the SDK's own schema is what is sent

from tests.acp_agent.acp_kit import (TOOL_FLAGS, FailingModel, RecordingClient, error_of, register,
                                 rig)
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import alive
from tests.engine.session_kit import agent_config

READ = {"name": "read_file", "arguments": {"path": "a.txt"}, "id": "c_read"}
WRITE = {"name": "write_file", "id": "c_write", "arguments": {"operations": [
    {"mode": "overwrite", "path": "new.txt", "content": "made by the agent\n"}]}}
BASH = {"name": "bash", "id": "c_bash", "arguments": {"commands": [{"command": "echo hi"}]}}


# -- initialize ---------------------------------------------------------------------------------

async def test_initialize_advertises_protocol_1_sessions_and_raw_flags(tmp_path):
    async with rig(tmp_path) as r:
        reply = await r.conn.initialize(protocol_version=1, raw={"panelsV2": True})
        wire = reply.model_dump(by_alias=True, exclude_none=True)
    assert wire["protocolVersion"] == 1
    caps = wire["agentCapabilities"]
    assert caps["loadSession"] is True
    assert set(caps["sessionCapabilities"]) == {"list", "resume", "delete"}
    assert wire["agentInfo"]["name"] == "raw-tui"
    assert wire["authMethods"] == []
    assert (caps["mcpCapabilities"]["http"], caps["mcpCapabilities"]["sse"]) == (True, False)
    assert wire["_meta"]["raw"] == {"runtimeInfo": True, "sessionConfigure": True,
                                    "sessionCompact": True, "panelsV2": True,
                                    "interactions": True, "toolRegister": True,
                                    "toolCall": True, "toolCancel": True}


async def test_initialize_refuses_a_non_boolean_flag(tmp_path):
    async with rig(tmp_path) as r:
        err = await error_of(r.conn.initialize(protocol_version=1,
                                               raw={"interactions": "yes"}))
    assert (err.code, err.message) == (-32602, "_meta.raw.interactions must be boolean")


# -- session/new ------------------------------------------------------------------------------

async def test_session_new_checks_order_cwd_and_mcp_servers(tmp_path):
    async with rig(tmp_path) as r:
        first = await error_of(r.conn.new_session(cwd=str(r.work), mcp_servers=[]))
        assert (first.code, first.message) == (-32600, "initialize first")
        await r.conn.initialize(protocol_version=1)
        relative = await error_of(r.conn.new_session(cwd="work", mcp_servers=[]))
        assert relative.code == -32602 and "absolute" in relative.message
        missing = await error_of(r.conn.new_session(cwd=str(tmp_path / "nope"), mcp_servers=[]))
        assert missing.code == -32602 and "not an existing directory" in missing.message
        from acp.schema import McpServerStdio, SseMcpServer

        sse = SseMcpServer(type="sse", name="events", url="http://127.0.0.1:9/sse", headers=[])
        mcp = await error_of(r.conn.new_session(cwd=str(r.work), mcp_servers=[sse]))
        assert (mcp.code, mcp.message) == (-32602,
                                           "mcpServers[0]: SSE MCP transport is unsupported")
        twice = [McpServerStdio(name="files", command="/bin/true", args=[], env=[])] * 2
        mcp = await error_of(r.conn.new_session(cwd=str(r.work), mcp_servers=twice))
        assert (mcp.code, mcp.message) == (-32602, "mcpServers[1]: duplicate MCP server: files")
        assert len(r.agent.store.list(None)) == 0  # nothing stored for a refused session
        ok = await r.conn.new_session(cwd=str(r.work), mcp_servers=[])
        assert ok.session_id in r.agent.bridges


async def test_session_start_hook_receipts_arrive_before_the_reply(tmp_path):
    cfg = tmp_path / "cfg"
    write_hook(cfg, "hello", "print('{}')", events=["SessionStart"])
    config = agent_config(tmp_path, hooks={"use": ["agent/hello"]})
    async with rig(tmp_path, config=config) as r:
        await r.start()
        assert r.client.text("agent_thought_chunk") == "Hook agent/hello SessionStart: continued\n"


# -- a turn: every update kind --------------------------------------------------------------------

async def test_a_turn_streams_text_tool_calls_and_results(tmp_path):
    lines = [{"text": "Let me look.", "tool_calls": [READ, BASH]},
             {"tool_calls": [{"name": "read_file", "arguments": {"path": "missing.txt"},
                              "id": "c_missing"}]},
             {"text": "All done."}]
    async with rig(tmp_path, lines) as r:
        (r.work / "a.txt").write_text("alpha\n")
        sid = await r.start()
        reply = await r.prompt(sid, "look around")
    client = r.client
    assert reply.stop_reason == "end_turn"
    assert client.text() == "Let me look.All done."
    read, bash, missing = client.of("tool_call")
    assert (read.tool_call_id, read.title, read.kind, read.status) == \
        ("c_read", "read_file", "read", "pending")
    assert read.raw_input == {"path": "a.txt"}
    assert [loc.path for loc in read.locations] == [str(r.work / "a.txt")]
    assert os.path.isabs(read.locations[0].path)
    assert bash.kind == "execute" and missing.kind == "read"
    assert client.statuses("c_read") == ["pending", "in_progress", "completed"]
    assert client.statuses("c_missing") == ["pending", "in_progress", "failed"]
    done = [u for u in client.of("tool_call_update") if u.status == "completed"][0]
    assert done.raw_output["isError"] is False
    assert done.raw_output["content"] == [{"type": "text", "text": "1\talpha"}]
    failed = [u for u in client.of("tool_call_update") if u.status == "failed"][0]
    assert failed.raw_output["isError"] is True and failed.raw_output["code"]


async def test_prompt_blocks_text_and_resource_link_only(tmp_path):
    async with rig(tmp_path, [{"text": "ok"}, {"text": "ok"}]) as r:
        sid = await r.start()
        link = acp.resource_link_block(name="notes.md", uri="file:///tmp/notes.md")
        reply = await r.conn.prompt(session_id=sid, prompt=[acp.text_block("read"), link])
        assert reply.stop_reason == "end_turn"
        image = acp.image_block("aGk=", "image/png")
        err = await error_of(r.conn.prompt(session_id=sid, prompt=[image]))
        assert (err.code, err.message) == (-32602, "unsupported prompt block: image")
    # the link reached the model as a line naming it, never fetched
    assert r.models[0].requests[0].messages[-1].text == "read\n[notes.md](file:///tmp/notes.md)"


async def test_unknown_session_and_busy(tmp_path):
    async with rig(tmp_path, [{"tool_calls": [{"name": "bash", "id": "slow", "arguments": {
            "commands": [{"command": "sleep 2"}]}}]}]) as r:
        sid = await r.start()
        err = await error_of(r.prompt("s_nope", "hi"))
        assert err.code == -32001 and "s_nope" in err.message
        turn = asyncio.ensure_future(r.prompt(sid, "slow"))
        while r.agent.bridges[sid].state != "running":
            await asyncio.sleep(0.01)
        busy = await error_of(r.prompt(sid, "again"))
        assert busy.code == -32002
        await r.conn.cancel(session_id=sid)
        assert (await turn).stop_reason == "cancelled"


async def test_max_steps_and_provider_failure(tmp_path):
    loop = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    async with rig(tmp_path, [loop] * 5, max_steps=2) as r:
        (r.work / "a.txt").write_text("x")
        sid = await r.start()
        reply = await r.prompt(sid, "loop")
    assert reply.stop_reason == "max_turn_requests"
    assert reply.field_meta == {"raw": {"code": "max_steps"}}
    async with rig(tmp_path / "p") as r:
        sid = await r.start()
        r.agent.bridges[sid].session.provider = FailingModel()
        err = await error_of(r.prompt(sid, "hi"))
    assert err.code == -32007 and err.data == {"code": "model_error"}


# -- permission -----------------------------------------------------------------------------------

ASK_WRITE = {"rules": [{"match": "builtin/write_file", "effect": "ask"}]}


@pytest.mark.parametrize("answer, written, code", [
    ("allow", True, None), ("deny", False, "approval_denied"),
    ("cancelled", False, "approval_denied")])
async def test_permission_for_an_ask_rule(tmp_path, answer, written, code):
    client = RecordingClient(permission=lambda call: answer)
    async with rig(tmp_path, [{"tool_calls": [WRITE, READ]}, {"text": "ok"}], client=client,
                   **ASK_WRITE) as r:
        (r.work / "a.txt").write_text("a")
        sid = await r.start()
        reply = await r.prompt(sid, "write")
    assert reply.stop_reason == "end_turn"
    [request] = client.permissions  # only the ask: read_file ran without one
    options = [(o.option_id, o.kind) for o in request["options"]]
    assert options == [("allow", "allow_once"), ("deny", "reject_once")]
    call = request["tool_call"]
    assert (call.tool_call_id, call.kind, call.status) == ("c_write", "edit", "pending")
    target = str(r.work / "new.txt")
    assert call.field_meta["raw"]["effects"] == {"files": [{"path": target,
                                                            "operation": "write"}]}
    assert [loc.path for loc in call.locations] == [target]
    assert (r.work / "new.txt").exists() is written
    last = [u for u in client.of("tool_call_update") if u.tool_call_id == "c_write"][-1]
    assert last.status == ("completed" if written else "failed")
    if code:
        assert last.raw_output["code"] == code
        assert client.statuses("c_write") == ["pending", "in_progress", "failed"]
    else:
        assert client.statuses("c_write") == ["pending", "in_progress", "in_progress",
                                              "completed"]


async def test_a_deny_rule_never_asks_and_hooks_still_run(tmp_path):
    cfg = tmp_path / "cfg"
    write_hook(cfg, "audit", "print('{}')", events=["PreToolUse"])
    client = RecordingClient(permission=lambda call: "allow")
    config = agent_config(tmp_path, hooks={"use": ["agent/audit"]},
                          rules=[{"match": "builtin/bash", "effect": "deny"},
                                 {"match": "builtin/read_file", "effect": "ask"}])
    async with rig(tmp_path, [{"tool_calls": [BASH, READ]}, {"text": "ok"}], client=client,
                   config=config) as r:
        (r.work / "a.txt").write_text("a")
        sid = await r.start()
        await r.prompt(sid, "go")
    assert [p["tool_call"].tool_call_id for p in client.permissions] == ["c_read"]
    bash_end = [u for u in client.of("tool_call_update") if u.tool_call_id == "c_bash"][-1]
    assert bash_end.raw_output["code"] == "tool_denied"
    assert "Hook agent/audit PreToolUse: continued" in client.text("agent_thought_chunk")
    # the model never saw the denied tool
    assert "bash" not in [t.name for t in r.models[0].requests[0].tools]


# -- cancel -----------------------------------------------------------------------------------------

async def test_cancel_mid_turn_ends_a_long_bash_and_replies_cancelled(tmp_path):
    pid_file = tmp_path / "bash.pid"
    long_bash = {"name": "bash", "id": "c_long", "arguments": {"commands": [
        {"command": f"echo $$ > {pid_file}; sleep 60"}]}}
    # mode off: the pid file is written outside the workspace, the pid is the host's
    async with rig(tmp_path, [{"tool_calls": [long_bash]}, {"text": "never"}],
                   sandbox={"mode": "off"}) as r:
        sid = await r.start()
        turn = asyncio.ensure_future(r.prompt(sid, "wait"))
        for _ in range(500):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            await asyncio.sleep(0.01)
        pid = int(pid_file.read_text())
        assert alive(pid)
        await r.conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(turn, 15)
        assert reply.stop_reason == "cancelled"
        assert r.client.statuses("c_long")[-1] == "failed"
        for _ in range(200):
            if not alive(pid):
                break
            await asyncio.sleep(0.01)
        assert not alive(pid), "the bash process outlived the cancel"
        # the same session takes the next prompt
        assert (await r.prompt(sid, "again")).stop_reason == "end_turn"


async def test_cancel_while_a_permission_request_waits(tmp_path):
    never: asyncio.Future = asyncio.get_running_loop().create_future()
    client = RecordingClient(permission=lambda call: never)
    async with rig(tmp_path, [{"tool_calls": [WRITE]}], client=client, **ASK_WRITE) as r:
        sid = await r.start()
        turn = asyncio.ensure_future(r.prompt(sid, "write"))
        while not client.permissions:
            await asyncio.sleep(0.01)
        await r.conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(turn, 10)
    assert reply.stop_reason == "cancelled"
    assert not (r.work / "new.txt").exists()
    last = [u for u in client.of("tool_call_update") if u.tool_call_id == "c_write"][-1]
    assert (last.status, last.raw_output["code"]) == ("failed", "cancelled")


# -- panels: plan, _raw/panel/update, _raw/panel/action ---------------------------------------------

def todo(mode, *items):
    return {"name": "todo", "arguments": {
        "mode": mode, "todos": [dict(zip(("id", "content", "status"), i)) for i in items]}}


async def test_the_todo_panel_sends_a_plan_on_each_committed_revision(tmp_path):
    lines = [{"tool_calls": [todo("replace", ("a", "Read", "in_progress"),
                                  ("b", "Write", "pending"), ("c", "Check", "blocked"))]},
             {"tool_calls": [todo("merge", ("a", "Read", "done"), ("b", "Write", "skipped"))]},
             {"text": "ok"}]
    async with rig(tmp_path, lines, use=["builtin/todo"]) as r:
        sid = await r.start()
        await r.prompt(sid, "plan")
    plans = [[(e.content, e.status, e.priority) for e in u.entries] for u in r.client.of("plan")]
    assert plans == [
        [("Read", "in_progress", "medium"), ("Write", "pending", "medium"),
         ("Check", "pending", "medium")],
        [("Read", "completed", "medium"), ("Write", "completed", "medium"),
         ("Check", "pending", "medium")]]
    # panel receipts as thoughts; no _raw/panel/update without panelsV2
    assert "▸ Todo r2" in r.client.text("agent_thought_chunk")
    assert r.client.ext_notifications == []


ACTION_TOOL = '''
def handler(args, ctx):
    if args.get("op") == "done":
        return {"content": [{"type": "panel", "panel": "board", "op": "replace", "document": {
            "title": "Board", "blocks": [{"kind": "markdown", "id": "m", "text": "done"}]}}]}
    return {"content": [{"type": "panel", "panel": "board", "op": "replace", "document": {
        "title": "Board", "blocks": [{"kind": "markdown", "id": "m", "text": "start"}]}}]}
'''
BOARD = [{"id": "board", "title": "Board", "actions": [
    {"id": "finish", "label": "Finish", "kind": "tool", "arguments": {"op": "done"}}]}]


async def test_panels_v2_updates_and_a_panel_action_through_the_gate(tmp_path):
    tools = {"board": (ACTION_TOOL, {"panels": BOARD, "schema": {
        "type": "object", "properties": {"op": {"type": "string"}}}})}
    client = RecordingClient(permission=lambda call: "allow")
    async with rig(tmp_path, [{"tool_calls": [{"name": "board", "arguments": {}}]},
                              {"text": "ok"}], client=client, tools=tools,
                   use=["agent/board"], rules=[{"match": "agent/board", "effect": "ask"}]) as r:
        sid = await r.start(raw={"panelsV2": True})
        await r.prompt(sid, "board")
        [(method, update)] = client.ext_notifications
        assert method == "raw/panel/update"  # `_raw/panel/update` on the wire
        assert (update["panel"], update["owner"], update["revision"], update["closed"]) == \
            ("agent/board#board", "agent/board", 1, False)
        assert update["document"]["blocks"][0]["text"] == "start"
        reply = await r.conn.ext_method("raw/panel/action", {
            "sessionId": sid, "panel": "agent/board#board", "action": "finish"})
        assert reply["operationId"]
        # the action went through the gate: the ask rule asked the client again
        assert len(client.permissions) == 2
        assert client.ext_notifications[-1][1]["document"]["blocks"][0]["text"] == "done"
        stale = await error_of(r.conn.ext_method("raw/panel/action", {
            "sessionId": sid, "panel": "agent/board#nope", "action": "finish"}))
        assert stale.code == -32602
        unknown = await error_of(r.conn.ext_method("raw/panel/action", {
            "sessionId": "s_nope", "panel": "agent/board#board", "action": "finish"}))
        assert unknown.code == -32001


async def test_panel_action_needs_panels_v2(tmp_path):
    async with rig(tmp_path) as r:
        sid = await r.start()
        err = await error_of(r.conn.ext_method("raw/panel/action", {
            "sessionId": sid, "panel": "x#y", "action": "a"}))
        assert err.code == -32003
        nope = await error_of(r.conn.ext_method("raw/nothing", {}))
        assert nope.code == -32601


# -- interactions -----------------------------------------------------------------------------------

QUESTION = {"name": "ask_user", "id": "c_ask", "arguments": {"title": "A question", "questions": [
    {"id": "colour", "text": "Which colour?", "options": [
        {"id": "blue", "label": "Blue"}, {"id": "green", "label": "Green"}]}]}}


async def test_ask_user_form_answered_by_the_client(tmp_path):
    seen = []

    def form(params):
        seen.append(params)
        return {"action": "submit", "answers": {"colour": "green"}}

    client = RecordingClient(form=form)
    async with rig(tmp_path, [{"tool_calls": [QUESTION]}, {"text": "Green it is."}],
                   client=client, use=["builtin/ask_user"]) as r:
        sid = await r.start(raw={"interactions": True})
        reply = await r.prompt(sid, "ask me")
    assert reply.stop_reason == "end_turn"
    [params] = seen
    assert params["panel"] == "builtin/ask_user#ask" and params["requestId"].startswith("ir_")
    assert params["document"]["blocks"][0]["kind"] == "form"
    result = [u for u in client.of("tool_call_update") if u.status == "completed"][0]
    assert result.raw_output["content"] == [{"type": "json", "value": {
        "status": "answered", "answers": {"colour": "green"}}}]
    tool_message = r.models[0].requests[1].messages[-1]
    assert json.loads(tool_message.text)["answers"] == {"colour": "green"}


async def test_ask_user_refused_answer_and_no_capability(tmp_path):
    client = RecordingClient(form=lambda params: {"action": "submit",
                                                  "answers": {"colour": "purple"}})
    async with rig(tmp_path, [{"tool_calls": [QUESTION]}, {"text": "ok"}], client=client,
                   use=["builtin/ask_user"]) as r:
        sid = await r.start(raw={"interactions": True})
        await r.prompt(sid, "ask")
    bad = [u for u in client.of("tool_call_update") if u.status == "failed"][0]
    assert bad.raw_output["code"] == "interaction_cancelled"
    plain = RecordingClient()
    async with rig(tmp_path / "b", [{"tool_calls": [QUESTION]}, {"text": "ok"}], client=plain,
                   use=["builtin/ask_user"]) as r:
        sid = await r.start()
        await r.prompt(sid, "ask")
    assert plain.ext_requests == []
    failed = [u for u in plain.of("tool_call_update") if u.status == "failed"][0]
    assert failed.raw_output["code"] == "interaction_unavailable"


# -- list, load, resume -------------------------------------------------------------------------------

async def test_list_load_and_resume(tmp_path):
    lines = [{"text": "Hello there.", "tool_calls": [READ, todo("replace", ("a", "One", "done"))]},
             {"text": "Bye."}]
    async with rig(tmp_path, lines, use=["builtin/read_file", "builtin/todo"]) as r:
        (r.work / "a.txt").write_text("a")
        sid = await r.start()
        await r.prompt(sid, "first turn")
        listed = await r.conn.list_sessions(cwd=str(r.work))
        assert [s.session_id for s in listed.sessions] == [sid]
        assert listed.sessions[0].cwd == str(r.work) and listed.sessions[0].updated_at
        assert (await r.conn.list_sessions(cwd=str(tmp_path))).sessions == []
        before = len(r.client.updates)
        await r.conn.load_session(cwd=str(r.work), session_id=sid, mcp_servers=[])
        replay = r.client.updates[before:]
        kinds = [u.session_update for u in replay]
        assert kinds[0] == "user_message_chunk" and replay[0].content.text == "first turn"
        assert "tool_call" in kinds and "tool_call_update" in kinds
        assert "".join(u.content.text for u in replay
                       if u.session_update == "agent_message_chunk") == "Hello there.Bye."
        assert kinds[-1] == "plan"  # the open panel's current state, once, after history
        assert kinds.count("plan") == 1
        before = len(r.client.updates)
        await r.conn.resume_session(cwd=str(r.work), session_id=sid)
        assert [u.session_update for u in r.client.updates[before:]] == ["plan"]
        unknown = await error_of(r.conn.load_session(cwd=str(r.work), session_id="s_nope",
                                                     mcp_servers=[]))
        assert unknown.code == -32001
        elsewhere = await error_of(r.conn.load_session(cwd=str(tmp_path), session_id=sid,
                                                       mcp_servers=[]))
        assert elsewhere.code == -32602
        # the reopened session continues the conversation
        assert (await r.prompt(sid, "second")).stop_reason == "end_turn"


# -- the diff from the engine's preview ------------------------------------------------------------

def test_write_file_diff_from_the_preview_shape(tmp_path):
    """The `preview` of `approval_request` (house shape) becomes diffs with absolute paths;
    a new file has oldText "" (Toad opens its diff screen only with all three keys)."""
    import msgspec

    from raw_tui.protocol import bus as ev
    from raw_tui.acp import updates

    event = ev.ApprovalRequest(call_id="c", identity="builtin/write_file", name="write_file",
                               arguments={}, effects={"files": [
                                   {"path": str(tmp_path / "a.txt"), "operation": "update"}]})
    event_preview = ev.ApprovalPreview(files=[
        ev.FilePreview(path="a.txt", operation="update", before="old\n", after="new\n"),
        ev.FilePreview(path=str(tmp_path / "b.txt"), operation="create", before=None,
                       after="fresh\n"),
        ev.FilePreview(path="big.bin", operation="update", before=None, after=None)])
    diffs = updates.diffs(msgspec.structs.replace(event, preview=event_preview), str(tmp_path))
    assert diffs == [
        {"type": "diff", "path": str(tmp_path / "a.txt"), "oldText": "old\n", "newText": "new\n"},
        {"type": "diff", "path": str(tmp_path / "b.txt"), "oldText": "", "newText": "fresh\n"}]
    from acp.schema import FileEditToolCallContent

    for diff in diffs:  # valid for the SDK's schema
        FileEditToolCallContent.model_validate(diff)
    params = updates.permission_request("s", event, str(tmp_path))
    assert "content" not in params["toolCall"]  # no preview on this event: no diff
    assert params["toolCall"]["locations"] == [{"path": str(tmp_path / "a.txt")}]


# -- client tools ---------------------------------------------------------------------------------



async def test_register_a_client_tool_and_its_errors(tmp_path):
    async with rig(tmp_path) as r:
        sid = await r.start()
        err = await error_of(register(r, sid))
        assert err.code == -32003
    async with rig(tmp_path / "b") as r:
        sid = await r.start(raw=TOOL_FLAGS)
        reply = await register(r, sid)
        assert reply["identity"] == "acp:open_editor"
        assert reply["alias"].startswith("raw_open_editor_") and len(reply["toolId"]) == 36
        duplicate = await error_of(register(r, sid))
        assert duplicate.code == -32008
        bad = await error_of(register(r, sid, "other", {"type": "array"}))
        assert bad.code == -32602 and "inputSchema" in bad.message
        invalid = await error_of(register(r, sid, "bad", {"type": "object",
                                                             "properties": {"x": {"type": 5}}}))
        assert invalid.code == -32602
        unknown = await error_of(register(r, "s_nope"))
        assert unknown.code == -32001
        # the tool is this session's only
        other = await r.conn.new_session(cwd=str(r.work), mcp_servers=[])
        assert "acp:open_editor" not in r.session(other.session_id).agent.tools.by_identity
        assert "acp:open_editor" in r.session(sid).agent.tools.by_identity


def _client_call(path="a.txt", call_id="c_client"):
    return {"name": "acp:open_editor", "id": call_id, "arguments": {"path": path}}


async def test_a_client_tool_runs_on_the_client_through_the_gate(tmp_path):
    cfg = tmp_path / "cfg"
    write_hook(cfg, "audit", "print('{}')", events=["PreToolUse"])
    config = agent_config(tmp_path, hooks={"use": ["agent/audit"]},
                          rules=[{"match": "acp:*", "effect": "ask",
                                  "when": {"source": "arguments", "any": "path",
                                           "regex": "secret"}}])
    client = RecordingClient(permission=lambda call: "deny")
    async with rig(tmp_path, [{"tool_calls": [_client_call("a.txt", "c_plain"),
                                              _client_call("secret.txt", "c_secret")]},
                              {"text": "ok"}], client=client, config=config) as r:
        sid = await r.start(raw=TOOL_FLAGS)
        reply = await register(r, sid)
        await r.prompt(sid, "open files")
    # the model saw the alias; the plain call ran on the client, the asked one was denied
    assert reply["alias"] in [t.name for t in r.models[0].requests[0].tools]
    calls = [params for method, params in client.ext_requests if method == "raw/tool/call"]
    assert [(c["invocationId"], c["arguments"]) for c in calls] == [("c_plain",
                                                                      {"path": "a.txt"})]
    assert calls[0]["toolId"] == reply["toolId"]
    assert [p["tool_call"].tool_call_id for p in client.permissions] == ["c_secret"]
    ends = {u.tool_call_id: u for u in client.of("tool_call_update")
            if u.status in ("completed", "failed")}
    assert ends["c_plain"].raw_output["content"] == [{"type": "text",
                                                      "text": "done by the client"}]
    assert ends["c_secret"].raw_output["code"] == "approval_denied"
    thoughts = client.text("agent_thought_chunk")
    assert thoughts.count("Hook agent/audit PreToolUse: continued") == 2
    # the model read the client's answer
    assert "done by the client" in r.models[0].requests[1].wire()


async def test_a_client_tool_denied_by_a_rule_is_hidden_and_never_called(tmp_path):
    client = RecordingClient()
    async with rig(tmp_path, [{"tool_calls": [_client_call()]}, {"text": "ok"}],
                   client=client, rules=[{"match": "acp:*", "effect": "deny"}]) as r:
        sid = await r.start(raw=TOOL_FLAGS)
        reply = await register(r, sid)
        await r.prompt(sid, "open")
    assert reply["alias"] not in [t.name for t in r.models[0].requests[0].tools]
    assert [m for m, _ in client.ext_requests if m == "raw/tool/call"] == []
    [end] = [u for u in client.of("tool_call_update") if u.status == "failed"]
    assert end.raw_output["code"] == "tool_denied"


async def test_a_client_tool_cancelled_mid_call_gets_tool_cancel(tmp_path):
    never: asyncio.Future = asyncio.get_running_loop().create_future()
    client = RecordingClient(tool=lambda params: never)
    async with rig(tmp_path, [{"tool_calls": [_client_call()]}], client=client) as r:
        sid = await r.start(raw=TOOL_FLAGS)
        await register(r, sid)
        turn = asyncio.ensure_future(r.prompt(sid, "open"))
        while not client.ext_requests:
            await asyncio.sleep(0.01)
        await r.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 10)).stop_reason == "cancelled"
        for _ in range(100):
            if client.ext_notifications:
                break
            await asyncio.sleep(0.01)
    assert client.ext_notifications == [("raw/tool/cancel", {"sessionId": sid,
                                                             "invocationId": "c_client"})]


async def test_a_client_tool_reply_that_is_not_a_result(tmp_path):
    client = RecordingClient(tool=lambda params: {"isError": False, "content": [
        {"type": "image", "data": "aGk=", "mimeType": "image/png"}]})
    async with rig(tmp_path, [{"tool_calls": [_client_call()]}, {"text": "ok"}],
                   client=client) as r:
        sid = await r.start(raw=TOOL_FLAGS)
        await register(r, sid)
        await r.prompt(sid, "open")
    [end] = [u for u in client.of("tool_call_update") if u.status == "failed"]
    assert end.raw_output["code"] == "unsupported_content"


async def test_an_ask_for_write_file_carries_the_engines_diff(tmp_path):
    """With the engine's approval preview (docs/gate.md, "Approval"), the permission request shows the
    change as diffs: absolute path, the old text ("" for a new file), the new text."""
    edit = {"name": "write_file", "id": "c_edit", "arguments": {"operations": [
        {"mode": "overwrite", "path": "a.txt", "content": "new\n"},
        {"mode": "overwrite", "path": "fresh.txt", "content": "fresh\n"}]}}
    client = RecordingClient(permission=lambda call: "allow")
    async with rig(tmp_path, [{"tool_calls": [edit]}, {"text": "ok"}], client=client,
                   **ASK_WRITE) as r:
        (r.work / "a.txt").write_text("old\n")
        sid = await r.start()
        await r.prompt(sid, "edit")
    [request] = client.permissions
    diffs = [c.model_dump(by_alias=True) for c in request["tool_call"].content]
    assert [(d["type"], d["path"], d["oldText"], d["newText"]) for d in diffs] == [
        ("diff", str(r.work / "a.txt"), "old\n", "new\n"),
        ("diff", str(r.work / "fresh.txt"), "", "fresh\n")]
    assert (r.work / "a.txt").read_text() == "new\n"


async def test_a_write_allowed_by_policy_shows_its_diff_and_writes_the_same(tmp_path):
    """docs/acp.md: every write_file tool_call carries a `diff` per file (absolute
    path, `oldText` "" for a new file) and its locations, kept on the completed update; no
    permission is asked, and what is written is what the model asked for."""
    edit = {"name": "write_file", "id": "c_edit", "arguments": {"operations": [
        {"mode": "overwrite", "path": "a.txt", "content": "new\n"},
        {"mode": "overwrite", "path": "sub/fresh.txt", "content": "fresh\n"}]}}
    client = RecordingClient(permission=lambda call: "deny")
    async with rig(tmp_path, [{"tool_calls": [edit]}, {"text": "ok"}], client=client) as r:
        (r.work / "a.txt").write_text("old\n")
        sid = await r.start()
        await r.prompt(sid, "edit")
    assert client.permissions == []
    [call] = client.of("tool_call")
    expected = [("diff", str(r.work / "a.txt"), "old\n", "new\n"),
                ("diff", str(r.work / "sub" / "fresh.txt"), "", "fresh\n")]
    shown = [c.model_dump(by_alias=True) for c in call.content]
    assert [(d["type"], d["path"], d["oldText"], d["newText"]) for d in shown] == expected
    assert [loc.path for loc in call.locations] == [str(r.work / "a.txt"),
                                                    str(r.work / "sub" / "fresh.txt")]
    [done] = [u for u in client.of("tool_call_update") if u.status == "completed"]
    kept = [c.model_dump(by_alias=True) for c in done.content if c.type == "diff"]
    assert [(d["path"], d["oldText"], d["newText"]) for d in kept] == [e[1:] for e in expected]
    assert (r.work / "a.txt").read_text() == "new\n"
    assert (r.work / "sub" / "fresh.txt").read_text() == "fresh\n"


async def test_a_read_has_no_diff(tmp_path):
    async with rig(tmp_path, [{"tool_calls": [READ]}, {"text": "ok"}]) as r:
        (r.work / "a.txt").write_text("hello\n")
        sid = await r.start()
        await r.prompt(sid, "read")
    [call] = r.client.of("tool_call")
    assert not call.content


# -- _raw/runtime/info ------------------------------------------------------------------------------

async def test_runtime_info_describes_the_agent_its_tools_and_its_mcp_catalog(tmp_path):
    """docs/acp.md: `{agent, limits, mcpSelection, toolPolicy, tools, mcpCatalog}` (plus
    raw-tui's `version` and `config`), never a credential; it needs `runtimeInfo`."""
    from raw_tui.mcp.config import alias as mcp_alias
    from tests.mcpgate.mcp_kit import fixture_server, load, mcp_config

    key = "sk-runtime-info-0123456789SECRET"
    rules = [{"match": "builtin/bash", "effect": "ask", "when": {
        "source": "arguments", "any": "commands[*].command", "regex": key}}]
    path = mcp_config(tmp_path, {"fx": fixture_server()},
                      ["builtin/read_file", "builtin/bash", "mcp/fx/echo"], rules=rules)
    config = load(path, tmp_path)
    config.redactor.register(key)
    async with rig(tmp_path, config=config) as r:
        sid = await r.start(raw={**TOOL_FLAGS})
        refused = await error_of(r.conn.ext_method("raw/runtime/info", {"sessionId": sid}))
        assert refused.code == -32003
    async with rig(tmp_path / "b", config=config) as r:
        sid = await r.start(raw={**TOOL_FLAGS, "runtimeInfo": True})
        await register(r, sid)
        bare = await r.conn.ext_method("raw/runtime/info", {})
        info = await r.conn.ext_method("raw/runtime/info", {"sessionId": sid})
        unknown = await error_of(r.conn.ext_method("raw/runtime/info", {"sessionId": "nope"}))
        extra = await error_of(r.conn.ext_method("raw/runtime/info", {"verbose": True}))
    assert (unknown.code, extra.code) == (-32001, -32602)
    assert bare["tools"] == [] and bare["mcpCatalog"] == []
    assert info["version"] == "test" and info["config"] == str(path)
    assert info["agent"]["name"] == "main" and info["agent"]["method"] == "scripted"
    assert info["limits"]["maxSteps"] == 25 and info["limits"]["requestTimeoutMs"] == 120000
    assert info["mcpSelection"] == {"fx": ["echo"]}
    assert info["toolPolicy"][0]["when"]["regex"] == "[redacted]"
    assert key not in json.dumps(info) and key not in json.dumps(bare)
    origins = {t["alias"]: t["origin"] for t in info["tools"]}
    assert origins["read_file"] == "built-in" and origins["bash"] == "built-in"
    assert origins[mcp_alias("fx", "echo")] == "fx"
    assert [o for a, o in origins.items() if a.startswith("raw_open_editor_")] == ["peer"]
    catalog = {t["originalName"]: t["exposed"] for t in info["mcpCatalog"]}
    assert catalog == {"echo": True, "hidden_0": False, "hidden_1": False, "sleepy": False}
    assert {t["server"] for t in info["mcpCatalog"]} == {"fx"}

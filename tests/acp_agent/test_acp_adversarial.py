"""Adversarial review of `raw-tui acp`: malformed client answers, stale permission answers,
what a client sees before it approves."""

from __future__ import annotations

import asyncio

import pytest

from tests.acp_agent.acp_kit import TOOL_FLAGS, RecordingClient, error_of, register, rig
from tests.acp_agent.test_acp_agent import ASK_WRITE, _client_call


@pytest.mark.parametrize("content", [
    [{"type": "text", "text": 5}], [{"type": "text"}], [{"type": "json"}],
    [{"type": "text", "text": ["a"]}]])
async def test_a_malformed_client_tool_block_is_a_failed_call_not_a_crash(tmp_path, content):
    client = RecordingClient(tool=lambda params: {"isError": False, "content": content})
    async with rig(tmp_path, [{"tool_calls": [_client_call()]}, {"text": "after"}],
                   client=client) as r:
        sid = await r.start(raw=TOOL_FLAGS)
        await register(r, sid)
        reply = await asyncio.wait_for(r.prompt(sid, "open"), 20)
    assert reply.stop_reason == "end_turn"
    [end] = [u for u in client.of("tool_call_update") if u.status in ("completed", "failed")]
    assert end.status == "failed" and end.raw_output["code"] == "callback_error"
    assert "after" in client.text()


class SlowPipe:
    """The agent's connection with a client that reads its notifications slowly (a full
    pipe): the bridge's sender falls behind the engine."""

    def __init__(self, conn, delay):
        self.conn, self.delay = conn, delay

    async def send_notification(self, method, params):
        await asyncio.sleep(self.delay)
        return await self.conn.send_notification(method, params)

    def __getattr__(self, name):
        return getattr(self.conn, name)


def write_call(content):
    return {"name": "write_file", "id": "c1", "arguments": {"operations": [
        {"mode": "overwrite", "path": "f.txt", "content": content}]}}


async def test_an_answer_to_a_cancelled_request_never_approves_a_later_call(tmp_path):
    """Turn 1 asks for c1 (content A) and is cancelled while the permission request is still
    queued behind slow updates; turn 2's model reuses the id c1 (content B). The user allows
    the request showing A and denies B: B must not be written."""
    seen: list[str] = []

    async def permission(call):
        content = call.raw_input["operations"][0]["content"]
        seen.append(content)
        if content == "A":  # answered once the request for B is open too
            while "B" not in seen:
                await asyncio.sleep(0.01)
            return "allow"
        await asyncio.sleep(0.5)
        return "deny"

    client = RecordingClient(permission=permission)
    async with rig(tmp_path, [{"tool_calls": [write_call("A")]}, {"tool_calls": [
            write_call("B")]}, {"text": "ok"}], client=client, **ASK_WRITE) as r:
        sid = await r.start()
        bridge = r.agent.bridges[sid]
        bridge.conn = SlowPipe(bridge.conn, 0.2)
        turn = asyncio.ensure_future(r.prompt(sid, "one"))
        while r.session(sid).approver is None or not r.session(sid).approver.pending:
            await asyncio.sleep(0.005)
        await r.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(turn, 20)).stop_reason == "cancelled"
        await asyncio.wait_for(r.prompt(sid, "two"), 20)
    assert not (r.work / "f.txt").exists()
    assert "B" in seen


async def test_the_permission_request_shows_what_the_modal_shows(tmp_path):
    """A file too large to carry its texts, a non-UTF-8 file and a path through a symbolic
    link: the client must see the clipped diff, the note and the link, not an empty request.
    (write_file refuses the link: its own call, previewed as that refusal.)"""
    import os

    client = RecordingClient(permission=lambda call: "deny")
    edit = {"name": "write_file", "id": "c_edit", "arguments": {"operations": [
        {"mode": "replace_text", "path": "big.txt", "old_text": "line 7\n",
         "new_text": "seven\n"},
        {"mode": "append", "path": "bin.dat", "content": "x"}]}}
    via = {"name": "write_file", "id": "c_via", "arguments": {"operations": [
        {"mode": "append", "path": "via/f.txt", "content": "x\n"}]}}
    async with rig(tmp_path, [{"tool_calls": [edit, via]}, {"text": "ok"}], client=client,
                   **ASK_WRITE) as r:
        (r.work / "big.txt").write_text("".join(f"line {i}\n" for i in range(30000)))
        (r.work / "bin.dat").write_bytes(b"\xff\xfe\x00")
        (r.work / "real").mkdir()
        (r.work / "real" / "f.txt").write_text("a\n")
        os.symlink("real", r.work / "via")
        sid = await r.start()
        await r.prompt(sid, "edit")
    texts = []
    for request in client.permissions:
        blocks = [c.model_dump(by_alias=True) for c in request["tool_call"].content or []]
        texts.append("\n".join(b["content"]["text"] for b in blocks if b["type"] == "content"))
    assert len(texts) == 2
    assert "-line 7\n+seven" in texts[0]
    assert "no preview: " in texts[0] and "bin.dat" in texts[0]
    assert str(r.work / "via") in texts[1] and "symbolic link" in texts[1]
    assert "no preview: patch_symlink_path: " in texts[1]


async def test_extension_requests_before_initialize_are_invalid_request(tmp_path):
    """docs/acp.md: -32600 before initialize, for Raw's extensions as for the rest."""
    async with rig(tmp_path) as r:
        for method in ("raw/panel/action", "raw/tool/register", "raw/session/configure",
                       "raw/session/compact"):
            err = await error_of(r.conn.ext_method(method, {"sessionId": "x"}))
            assert (err.code, "initialize first" in err.message) == (-32600, True), method


@pytest.mark.parametrize("cursor", ["-1", "-20", "1e3", " 5"])
async def test_session_list_refuses_a_cursor_it_never_gave(tmp_path, cursor):
    async with rig(tmp_path) as r:
        await r.start()
        err = await error_of(r.conn.list_sessions(cursor=cursor))
    assert err.code == -32602 and "cursor" in err.message


ITEM_BOARD = [{"id": "board", "title": "Board", "actions": [
    {"id": "finish", "label": "Finish", "kind": "tool", "scope": "item",
     "arguments": {"op": "{{item.id}}"}}]}]
ITEM_TOOL = '''
def handler(args, ctx):
    import os
    with open(os.path.join(ctx.cwd, "ran.txt"), "a") as out:
        out.write(repr(args.get("op")) + "\\n")
    return {"content": [{"type": "panel", "panel": "board", "op": "replace", "document": {
        "title": "Board", "blocks": [{"kind": "checklist", "id": "list", "items": [
            {"id": "a", "label": "A", "status": "pending"}]}]}}]}
'''


async def test_a_panel_action_needs_an_open_panel_and_a_real_item(tmp_path):
    """The user can only act on what a panel shows: an action on a panel never opened, on a
    block or an item the document does not have, is refused (-32602) and runs nothing."""
    tools = {"board": (ITEM_TOOL, {"panels": ITEM_BOARD, "schema": {
        "type": "object", "properties": {"op": {"type": "string"}}}})}
    async with rig(tmp_path, [{"tool_calls": [{"name": "board", "arguments": {}}]},
                              {"text": "ok"}], tools=tools, use=["agent/board"]) as r:
        sid = await r.start(raw={"panelsV2": True})
        action = {"sessionId": sid, "panel": "agent/board#board", "action": "finish"}
        early = await error_of(r.conn.ext_method("raw/panel/action",
                                                 {**action, "block": "list", "item": "a"}))
        assert early.code == -32602
        await r.prompt(sid, "board")
        ran = (r.work / "ran.txt").read_text()
        for block, item in (("list", "$(touch pwned)"), ("nope", "a")):
            err = await error_of(r.conn.ext_method("raw/panel/action",
                                                   {**action, "block": block, "item": item}))
            assert err.code == -32602, (block, item)
        assert (r.work / "ran.txt").read_text() == ran  # nothing ran
        await r.conn.ext_method("raw/panel/action", {**action, "block": "list", "item": "a"})
        assert (r.work / "ran.txt").read_text() == ran + "'a'\n"


def test_the_first_line_is_read_up_to_a_bound(tmp_path):
    """`raw-tui acp` reads the first line itself (to answer `initialize` early): a client
    sending megabytes without a newline must not make it buffer them all (nor copy them
    quadratically); the rest is left to the SDK's bounded reader."""
    import os
    import threading

    from raw_tui.acp import command

    read_end, write_end = os.pipe()
    total = 8 * 1024 * 1024

    def feed():
        with os.fdopen(write_end, "wb") as out:
            try:
                out.write(b"x" * total)
            except BrokenPipeError:
                pass

    threading.Thread(target=feed, daemon=True).start()
    line, rest = command._read_line(read_end)
    os.close(read_end)
    assert line == b""
    assert len(rest) <= command.MAX_FIRST_LINE + 65536


async def test_a_session_is_busy_while_it_loads(tmp_path):
    """docs/acp.md: the session is busy while session/load runs (-32002), never unknown,
    and a prompt never interleaves its turn with the replayed history."""
    import acp

    async with rig(tmp_path, [{"text": "one"}, {"text": "two"}]) as r:
        sid = await r.start()
        await r.prompt(sid, "first")
        slow = SlowPipe(r.agent.conn, 0.05)
        r.agent.conn = slow  # the replay goes out slowly: the load takes a while
        load = asyncio.ensure_future(r.conn.load_session(cwd=str(r.work), session_id=sid,
                                                         mcp_servers=[]))
        await asyncio.sleep(0.02)
        err = await error_of(r.conn.prompt(session_id=sid, prompt=[acp.text_block("x")]))
        await asyncio.wait_for(load, 20)
    assert err.code == -32002, (err.code, err.message)

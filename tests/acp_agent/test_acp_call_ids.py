"""ACP tool calls keyed by the session (docs/decisions.md): a model that sends one
id twice in a response and again in the next turn gives the client a `toolCallId` per call,
each with its own pending → in_progress → completed."""

from __future__ import annotations

from tests.acp_agent.acp_kit import rig

READ = {"name": "read_file", "arguments": {"path": "a.txt"}, "id": "call_0"}


async def test_every_tool_call_has_its_own_tool_call_id(tmp_path):
    lines = [{"tool_calls": [READ, READ]}, {"text": "Read it twice."},
             {"tool_calls": [READ]}, {"text": "Once more."}]
    async with rig(tmp_path, lines) as r:
        (r.work / "a.txt").write_text("alpha\n")
        sid = await r.start()
        assert (await r.prompt(sid, "first")).stop_reason == "end_turn"
        assert (await r.prompt(sid, "second")).stop_reason == "end_turn"
    ids = [u.tool_call_id for u in r.client.of("tool_call")]
    assert ids == ["call_0", "call_0-2", "call_0-3"]
    for call_id in ids:
        assert r.client.statuses(call_id) == ["pending", "in_progress", "completed"]

"""Adversarial review of `raw-tui acp`: malformed client answers, stale permission answers,
what a client sees before it approves."""

from __future__ import annotations

import asyncio

import pytest

from tests.acp_agent.kit import RecordingClient, rig
from tests.acp_agent.test_acp_agent import ASK_WRITE, TOOL_FLAGS, _client_call, register


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

"""The token trigger with a real provider: the Usage a server reports makes the session
compact before its next request; the server then sees the summary request, and after it
the summary, the `[Raw panel state]` reminder and the kept turn."""

from __future__ import annotations

import json

from raw_tui.session.session import COMPACT_INSTRUCTION
from tests.e2e.provider_kit import server, wire  # noqa: F401 (fixtures)
from tests.engine.session_kit import agent_config
from raw_tui.protocol import bus as ev
from raw_tui.models.base import make_provider
from raw_tui.session.session import Session
from raw_tui.session.switch import model_spec as _model_spec

TODO = json.dumps({"todos": [{"id": "a", "content": "Compact me", "status": "pending"}]})


async def test_usage_from_the_server_triggers_compaction(tmp_path, wire, server):  # noqa: F811
    base = server.url + ("/v1" if wire.method == "openai-chat-completions" else "")
    model = {"method": wire.method, "model_id": "test-model", "base_url": base}
    config = agent_config(tmp_path, use=["builtin/todo"], models={"m": model},
                          compact={"trigger_tokens": 1000, "keep_turns": 2})
    agent = config.agent()
    events: list = []
    bus = ev.Bus()
    bus.subscribe(events.append)
    session = Session(config, agent, cwd=str(tmp_path), bus=bus,
                      provider=make_provider(_model_spec(agent)))
    server.enqueue(wire.calls([("call_t", "todo", TODO)], usage=(300, 5)),
                   wire.text("Listed.", usage=(400, 5)),
                   wire.text("Second answer.", usage=(1500, 5)),
                   wire.text("SUMMARY of the first turn", usage=(900, 10)),
                   wire.text("Third answer.", usage=(200, 5)))
    assert (await session.run_turn("first")).status == "completed"
    assert (await session.run_turn("second")).status == "completed"
    assert not [e for e in events if isinstance(e, ev.Compaction)]
    assert (await session.run_turn("third")).status == "completed"
    compaction, = [e for e in events if isinstance(e, ev.Compaction)]
    assert compaction.summary == "SUMMARY of the first turn"

    summary_body, last_body = server.requests[3].body, server.requests[4].body
    assert wire.user_texts(summary_body)[0] == "first"
    assert wire.user_texts(summary_body)[-1] == COMPACT_INSTRUCTION
    assert "second" not in wire.user_texts(summary_body)
    texts = wire.user_texts(last_body)
    assert texts[0] == "[Summary of the earlier conversation]\nSUMMARY of the first turn"
    assert texts[1].startswith("[Raw panel state]\nbuiltin/todo#todo")
    assert "Compact me" in texts[1]
    assert texts[2:] == ["second", "third"]
    assert wire.results(last_body) == []  # the first turn's call went into the summary
    assert [e.text for e in events if isinstance(e, ev.AssistantText)][-1] == "Third answer."

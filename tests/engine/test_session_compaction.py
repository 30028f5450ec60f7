"""Compaction: `/compact` and the token trigger summarise older turns with the model, keep
recent ones, add the `[Raw panel state]` reminder of `context: summary` panels; panel state
never reaches the model otherwise; a resumed session rebuilds the same context."""

from __future__ import annotations

from raw_tui.protocol import bus as ev
from raw_tui.session.conversation import Conversation
from raw_tui.session.session import COMPACT_INSTRUCTION
from raw_tui.session.store import HistoryStore
from tests.engine.session_kit import agent_config, make_session

BOARD_TOOL = '''
async def handler(args, ctx):
    await ctx.panels.update("board", {"op": "replace", "document": {
        "title": "Board", "context_summary": "BOARD-CONTEXT " + args.get("text", ""),
        "blocks": [{"id": "b", "kind": "markdown", "text": "BOARD-BODY"}]}})
    return "board drawn"
'''
BOARD = (BOARD_TOOL, {"panels": [{"id": "board", "title": "Board", "context": "summary"}]})
USE = ["builtin/todo", "agent/board", "builtin/read_file"]

TODO = {"name": "todo", "arguments": {"todos": [
    {"id": "a", "content": "Read the code", "status": "done"},
    {"id": "b", "content": "Write the tests", "status": "in_progress"}]}}
BOARD_CALL = {"name": "board", "arguments": {"text": "v1"}}


def config(tmp_path, **compact):
    return agent_config(tmp_path, use=USE, tools={"board": BOARD},
                        **({"compact": compact} if compact else {}))


def roles_and_texts(request):
    return [(m.role, m.text) for m in request.messages]


async def test_compact_command_summarises_older_turns_and_keeps_recent(tmp_path):
    h = make_session(tmp_path, [
        {"text": "Planning.", "tool_calls": [TODO, BOARD_CALL]},
        {"text": "one"},
        {"text": "two"},
        {"text": "SUMMARY: the user asked twice."},
        {"text": "three"}],
        config=config(tmp_path, keep_turns=1))
    await h.session.run_turn("first")
    await h.session.run_turn("second")
    before = list(h.model.requests)
    for request in before:  # panel state never reaches the model
        assert "BOARD-CONTEXT" not in request.wire() and "BOARD-BODY" not in request.wire()
        assert "[Raw panel state]" not in request.wire()
    tool_texts = [m.text for m in before[1].messages if m.role == "tool"]
    assert tool_texts == ["panel todo updated (revision 1): 1/2 done", "board drawn"]

    outcome = await h.session.run_turn("/compact")
    assert outcome.status == "completed"
    summary_request = h.model.requests[3]
    assert summary_request.messages[0].text == "first"
    assert summary_request.messages[-1].text == COMPACT_INSTRUCTION
    assert "second" not in summary_request.texts()  # the kept turn is not summarised
    assert [t.name for t in summary_request.tools] == ["todo", "board", "read_file"]
    compaction, = h.of(ev.Compaction)
    assert compaction.summary == "SUMMARY: the user asked twice."
    shown = [e.text for e in h.of(ev.AssistantDelta) + h.of(ev.AssistantText)]
    assert not any("SUMMARY" in text for text in shown)  # not shown as an answer

    await h.session.run_turn("third")
    messages = roles_and_texts(h.model.requests[-1])
    assert messages[0] == ("user", "[Summary of the earlier conversation]\n"
                                   "SUMMARY: the user asked twice.")
    role, reminder = messages[1]
    assert role == "user" and reminder.startswith("[Raw panel state]\n")
    assert 'builtin/todo#todo "Todo" (revision 1)' in reminder
    assert "Write the tests" in reminder
    assert "BOARD-CONTEXT v1" in reminder and "BOARD-BODY" not in reminder
    assert messages[2:] == [("assistant", "Understood."), ("user", "second"),
                            ("assistant", "two"), ("user", "third")]


async def test_compact_with_nothing_older_makes_no_request(tmp_path):
    h = make_session(tmp_path, [{"text": "one"}], config=config(tmp_path, keep_turns=2))
    await h.session.run_turn("first")
    outcome = await h.session.run_turn("/compact")
    assert (outcome.status, outcome.message) == ("completed", "nothing to compact")
    assert len(h.model.requests) == 1 and not h.of(ev.Compaction)


async def test_token_trigger_compacts_before_the_request(tmp_path):
    h = make_session(tmp_path, [
        {"text": "one", "tool_calls": [TODO]}, {"text": "one done"},
        {"text": "two"},
        {"text": "SUMMARY"},
        {"text": "three"}],
        config=config(tmp_path, trigger_tokens=1000, keep_turns=2),
        usage={0: (300, 5), 1: (400, 5), 2: (1500, 5), 4: (200, 5)})
    await h.session.run_turn("first")
    await h.session.run_turn("second")
    assert not h.of(ev.Compaction)  # 400 < 1000, then 1500 came with the last response
    await h.session.run_turn("third")
    compaction, = h.of(ev.Compaction)
    assert compaction.kept_turns == [h.of(ev.UserMessage)[1].turn_id,
                                     h.of(ev.UserMessage)[2].turn_id]
    assert compaction.turn_id == h.of(ev.UserMessage)[2].turn_id
    summary_request, last = h.model.requests[3], h.model.requests[4]
    assert summary_request.messages[-1].text == COMPACT_INSTRUCTION
    assert [t for _, t in roles_and_texts(last)][2:] == [
        "Understood.", "second", "two", "third"]
    assert roles_and_texts(last)[1][1].startswith("[Raw panel state]")
    await h.session.run_turn("fourth")  # 200 tokens: no second compaction
    assert len(h.of(ev.Compaction)) == 1


async def test_the_summary_request_does_not_trigger_another_compaction(tmp_path):
    h = make_session(tmp_path, [{"text": "one"}, {"text": "two"}, {"text": "SUMMARY"},
                                {"text": "three"}],
                     config=config(tmp_path, trigger_tokens=1000, keep_turns=1),
                     usage={0: (100, 5), 1: (200, 5), 2: (5000, 5)})
    for prompt in ("first", "second", "/compact", "third"):
        await h.session.run_turn(prompt)
    assert len(h.of(ev.Compaction)) == 1
    assert h.of(ev.AssistantText)[-1].text == "three"


async def test_resume_after_compaction_rebuilds_the_same_context(tmp_path):
    store = HistoryStore(tmp_path / "history.sqlite3")
    lines = [{"text": "Planning.", "tool_calls": [TODO, BOARD_CALL]}, {"text": "one"},
             {"text": "two"}, {"text": "SUMMARY"}, {"text": "three"}, {"text": "four"}]
    cfg = config(tmp_path, keep_turns=1)
    h = make_session(tmp_path, lines, config=cfg, store=store)
    await h.session.open()
    for prompt in ("first", "second", "/compact", "third"):
        await h.session.run_turn(prompt)
    await h.session.close()
    session_id = h.session.session_id
    history = store.events(session_id)
    rebuilt = Conversation.from_events(history)
    assert rebuilt.messages() == h.session.conversation.messages()

    again = make_session(tmp_path, lines, config=cfg, store=store, history=history,
                         session_id=session_id)
    assert again.model.position == 5
    await again.session.run_turn("fourth")
    request = again.model.requests[0]
    assert request.messages == h.session.conversation.messages() + request.messages[-1:]
    assert request.messages[-1].text == "fourth"
    assert again.of(ev.AssistantText)[0].text == "four"


async def test_clear_survives_a_resume(tmp_path):
    store = HistoryStore(tmp_path / "history.sqlite3")
    lines = [{"text": "one"}, {"text": "two"}]
    h = make_session(tmp_path, lines, store=store)
    await h.session.run_turn("first")
    await h.session.run_turn("/clear")
    history = store.events(h.session.session_id)
    assert Conversation.from_events(history).messages() == []
    again = make_session(tmp_path, lines, store=store, history=history,
                         session_id=h.session.session_id)
    await again.session.run_turn("second")
    assert again.model.requests[0].texts() == ["second"]
    assert again.of(ev.AssistantText)[0].text == "two"


async def test_the_panel_reminder_and_the_summary_carry_no_secret(tmp_path):
    """A panel's state and the model's summary may quote a configured secret: the context
    after a compaction holds `[redacted]` instead, as the saved history does, so a resumed
    session rebuilds the very same context (docs/security.md)."""
    key = "sk-compact-0123456789SECRET"
    board = {"name": "board", "arguments": {"text": f"token {key}"}}
    store = HistoryStore(tmp_path / "history.sqlite3")
    cfg = config(tmp_path, keep_turns=1)
    cfg.redactor.register(key)
    h = make_session(tmp_path, [
        {"text": "Planning.", "tool_calls": [board]}, {"text": "one"},
        {"text": "two"},
        {"text": f"SUMMARY: the board holds {key}."},
        {"text": "three"}], config=cfg, store=store)
    for prompt in ("first", "second", "/compact", "third"):
        await h.session.run_turn(prompt)
    last = h.model.requests[-1]
    assert key not in last.wire()
    messages = roles_and_texts(last)
    assert messages[0][1].endswith("SUMMARY: the board holds [redacted].")
    assert messages[1][1].startswith("[Raw panel state]\n")
    assert "BOARD-CONTEXT token [redacted]" in messages[1][1]
    history = store.events(h.session.session_id)
    assert Conversation.from_events(history).messages() == h.session.conversation.messages()

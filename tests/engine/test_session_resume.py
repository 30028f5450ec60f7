"""`--resume ID` and `--continue` through `open_session`: the conversation, the panels and
the scripted model's position come back from the saved history."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.config import DEMO_DIR
from raw_tui.session.open import UnknownSession, open_session
from raw_tui.session.request import SessionRequest
from raw_tui.session.store import HistoryStore
from tests.engine.session_kit import RecordingModel
from tests.config_kit import write_config, write_script

TODO = {"name": "todo", "arguments": {"todos": [
    {"id": "a", "content": "Read the code", "status": "done"},
    {"id": "b", "content": "Write the tests"}]}}
DRAW = {"name": "plan", "arguments": {"diagram": "graph TD\n  A --> B"}}
LINES = [
    {"text": "Planning.", "tool_calls": [TODO, DRAW]},
    {"text": "Planned."},
    {"text": "one " * 100},  # cancelled mid-stream in the first attachment
    {"text": "two"},
    {"text": "SUMMARY"},
    {"text": "three"},
]


@pytest.fixture
def setup(tmp_path):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    write_script(cfg, *LINES)
    shutil.copytree(DEMO_DIR / "tools" / "plan", cfg / "tools" / "plan")
    write_config(cfg, {"tools": {"use": ["builtin/todo", "agent/plan"]},
                       "compact": {"keep_turns": 1}})
    work = tmp_path / "work"
    work.mkdir()
    return cfg, work


def args(cfg, work, **kw):
    return SessionRequest(config=str(cfg / "raw.json"), cwd=work, resume=kw.get("resume"),
                          continue_=kw.get("continue_", False))


def collect(session) -> list[ev.Event]:
    events: list[ev.Event] = []
    session.bus.subscribe(events.append)
    return events


async def first_attachment(cfg, work, store):
    session, history = open_session(args(cfg, work), interactive=True, store=store)
    assert history == []
    session.provider.delay_ms = 5
    events = collect(session)
    await session.open()
    await session.run_turn("first")
    await session.handle(cmd.Prompt(text="second"))
    while not any(isinstance(e, ev.AssistantDelta) and e.text.startswith("one")
                  for e in events):
        await asyncio.sleep(0.005)
    await session.handle(cmd.Cancel())
    await session.wait_idle()
    await session.close()
    return session


async def test_resume_restores_conversation_panels_and_script_line(setup):
    cfg, work = setup
    store = HistoryStore()
    first = await first_attachment(cfg, work, store)

    session, history = open_session(args(cfg, work, resume=first.session_id),
                                    interactive=True, store=store)
    assert session.session_id == first.session_id and session.resumed
    assert session.provider.position == 3  # the cancelled request is not replayed
    assert session.conversation.messages() == first.conversation.messages()
    # panels come back from panel_state, with their declarations (actions, context)
    assert session.panels.get("builtin/todo#todo")[0] == 1
    assert session.panels.get("agent/plan#plan")[0] == 1
    assert [p.panel for p in session.panels.panels()] == ["builtin/todo#todo",
                                                          "agent/plan#plan"]
    events = collect(session)
    await session.open()
    assert events[0] == ev.SessionStart(session_id=first.session_id, agent="main")

    model = RecordingModel(LINES)
    model.position = session.provider.position
    session.provider = model
    await session.run_turn("third")
    assert [e.text for e in events if isinstance(e, ev.AssistantText)] == ["two"]
    request = model.requests[0]
    assert request.messages == first.conversation.messages() + request.messages[-1:]
    assert [m.role for m in request.messages][:3] == ["user", "assistant", "tool"]
    assert request.texts()[-2:] == ["second", "third"]  # the cancelled turn's prompt stays

    # a compaction in the resumed session reminds the model of both summary panels
    await session.run_turn("/compact")
    await session.run_turn("fourth")
    reminder = model.requests[-1].messages[1].text
    assert reminder.startswith("[Raw panel state]")
    assert "builtin/todo#todo" in reminder and "Plan diagram: graph TD" in reminder

    # a restored panel's actions work
    reply = await session.handle(cmd.PanelAction(panel="agent/plan#plan", action="redraw"))
    assert reply.ok and "revision 2" in reply.message
    await session.close()


async def test_continue_takes_the_latest_session_of_the_directory(setup, tmp_path):
    cfg, work = setup
    store = HistoryStore()
    other = tmp_path / "elsewhere"
    other.mkdir()
    session, _ = open_session(args(cfg, work), interactive=False, store=store)
    await session.run_turn("here")
    elsewhere, _ = open_session(args(cfg, other), interactive=False, store=store)
    await elsewhere.run_turn("there")

    again, history = open_session(args(cfg, work, continue_=True), interactive=False,
                                  store=store)
    assert again.session_id == session.session_id
    assert [e.text for e in history if isinstance(e, ev.UserMessage)] == ["here"]
    assert again.provider.position == 2


def test_unknown_session_and_nothing_to_continue(setup):
    cfg, work = setup
    with pytest.raises(UnknownSession, match="unknown session nope"):
        open_session(args(cfg, work, resume="nope"), interactive=False)
    with pytest.raises(UnknownSession, match="no saved session in"):
        open_session(args(cfg, work, continue_=True), interactive=False)


async def test_script_position_never_passes_the_end(setup):
    cfg, work = setup
    (cfg / "script.jsonl").write_text(json.dumps({"text": "only"}) + "\n")
    store = HistoryStore()
    session, _ = open_session(args(cfg, work), interactive=False, store=store)
    for prompt in ("a", "b", "c"):  # the script runs out: empty answers
        await session.run_turn(prompt)
    again, _ = open_session(args(cfg, work, resume=session.session_id), interactive=False,
                            store=store)
    assert again.provider.position == 1
    assert (await again.run_turn("d")).status == "completed"


def answered_calls(messages) -> bool:
    """Every assistant tool call is answered by a tool message before anything else: what
    both providers require of a conversation (else every later request is refused)."""
    waiting: list[str] = []
    for message in messages:
        if message.role == "tool":
            if message.tool_call_id in waiting:
                waiting.remove(message.tool_call_id)
            continue
        if waiting:
            return False
        if message.role == "assistant":
            waiting = [call.id for call in message.tool_calls]
    return not waiting


def test_a_history_cut_off_mid_call_still_answers_every_call():
    # kill -9 while a tool ran: its tool_call is saved, its tool_result never was
    from raw_tui.session.conversation import Conversation

    cut = [ev.UserMessage(text="go", turn_id="t1"),
           ev.AssistantText(text="Working.", turn_id="t1"),
           ev.ToolCall(call_id="c1", identity="builtin/bash", name="bash",
                       arguments={"commands": []}, turn_id="t1"),
           ev.ToolCall(call_id="c2", identity="builtin/bash", name="bash",
                       arguments={"commands": []}, turn_id="t1"),
           ev.ToolResultEvent(call_id="c1", isError=False, content=[], turn_id="t1")]
    conversation = Conversation.from_events(cut)
    assert answered_calls(conversation.messages())
    conversation = Conversation.from_events(cut + [ev.UserMessage(text="again", turn_id="t2")])
    messages = conversation.messages()
    assert answered_calls(messages)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "tool", "user"]
    assert messages[3].is_error and messages[3].tool_call_id == "c2"


def test_a_stored_event_that_no_longer_decodes_is_skipped_with_a_notice(tmp_path):
    from raw_tui.protocol import bus as ev
    from raw_tui.session.store import HistoryStore

    store = HistoryStore(tmp_path / "h.sqlite3")
    store.create("s1", cwd="/w", agent="a", model="m", config="c")
    store.append("s1", ev.UserMessage(text="hello", turn_id="t1"))
    store.db.execute("INSERT INTO events (session_id, seq, type, data) VALUES (?, ?, ?, ?)",
                     ("s1", 2, "future_event", b'{"type":"future_event","x":1}'))
    later = HistoryStore(tmp_path / "h.sqlite3")  # a later attachment appends after it
    later.append("s1", ev.RunEnd(status="completed", turn_id="t1"))
    events = later.events("s1")
    assert [type(e).__name__ for e in events] == ["UserMessage", "Notice", "RunEnd"]
    assert "stored event 2 skipped" in events[1].message

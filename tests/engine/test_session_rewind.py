"""Retry and edit-and-resend (issue 11): the superseded turns leave the model's context, the
saved history keeps them before a `turn_rewind` event, and a resumed session sends the model
what it saw before."""

from __future__ import annotations

from msgspec.structs import replace

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.session.conversation import Conversation
from raw_tui.session.open import open_session
from raw_tui.session.request import SessionRequest
from raw_tui.session.store import HistoryStore
from tests.engine.session_kit import make_session
from tests.config_kit import write_config

LINES = [{"text": "A"}, {"text": "B"}, {"text": "C"}, {"text": "D"}]


def texts(request) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in request.messages]


async def send(session, command) -> cmd.Reply:
    reply = await session.handle(command)
    await session.wait_idle()
    return reply


async def test_retry_runs_the_last_prompt_again_without_its_answer(tmp_path):
    h = make_session(tmp_path, LINES, store=HistoryStore())
    await h.session.run_turn("first")
    await h.session.run_turn("second")
    second_turn = h.of(ev.UserMessage)[1].turn_id

    assert (await send(h.session, cmd.Retry())).ok

    assert texts(h.model.requests[2]) == [("user", "first"), ("assistant", "A"),
                                          ("user", "second")]
    rewind = h.of(ev.TurnRewind)[0]
    assert (rewind.from_turn, rewind.reason) == (second_turn, "retry")
    kinds = h.kinds()
    assert kinds[kinds.index("TurnRewind") + 1] == "UserMessage"  # the marker, then the prompt
    assert rewind.turn_id == h.of(ev.UserMessage)[2].turn_id != second_turn
    # the history keeps the superseded turn; replayed, the conversation is what the model saw
    saved = h.session.store.events(h.session.session_id)
    assert [e.text for e in saved if isinstance(e, ev.AssistantText)] == ["A", "B", "C"]
    replayed = Conversation.from_events(saved).messages()
    assert [(m.role, m.text) for m in replayed] == texts(h.model.requests[2]) + [
        ("assistant", "C")]


async def test_edit_replaces_that_prompt_and_every_later_turn(tmp_path):
    h = make_session(tmp_path, LINES)
    await h.session.run_turn("first")
    await h.session.run_turn("second")
    first_turn = h.of(ev.UserMessage)[0].turn_id

    assert (await send(h.session, cmd.EditPrompt(turn_id=first_turn, text="first, edited"))).ok

    assert texts(h.model.requests[2]) == [("user", "first, edited")]
    assert h.of(ev.TurnRewind)[0].from_turn == first_turn
    assert h.of(ev.TurnRewind)[0].reason == "edit"
    # the next turn follows the edited one
    await h.session.run_turn("third")
    assert texts(h.model.requests[3]) == [("user", "first, edited"), ("assistant", "C"),
                                          ("user", "third")]


async def test_refusals_say_why(tmp_path):
    h = make_session(tmp_path, LINES)
    reply = await send(h.session, cmd.Retry())
    assert (reply.ok, reply.code) == (False, "rewind_unavailable")
    assert "nothing to retry" in reply.message
    await h.session.run_turn("first")
    turn = h.of(ev.UserMessage)[0].turn_id
    reply = await send(h.session, cmd.EditPrompt(turn_id="t-nope", text="x"))
    assert (reply.ok, reply.code) == (False, "rewind_unavailable")
    reply = await send(h.session, cmd.EditPrompt(turn_id=turn, text="   "))
    assert (reply.ok, reply.code) == (False, "rewind_unavailable")
    await h.session.run_turn("/clear")  # the prompt left the context: it cannot be edited
    reply = await send(h.session, cmd.EditPrompt(turn_id=turn, text="again"))
    assert (reply.ok, reply.code) == (False, "rewind_unavailable")
    assert "no longer in the model's context" in reply.message
    assert not h.of(ev.TurnRewind) and len(h.model.requests) == 1


async def test_notes_of_a_replaced_turn_go_with_the_new_prompt(tmp_path):
    h = make_session(tmp_path, LINES)
    h.session.notes = ["[note] the user ran an action"]
    await h.session.run_turn("first")
    assert (await send(h.session, cmd.Retry())).ok
    assert h.of(ev.UserMessage)[1].notes == ["[note] the user ran an action"]
    assert texts(h.model.requests[1]) == [("user", "[note] the user ran an action\n\nfirst")]


async def test_a_resumed_session_sends_what_the_model_saw(tmp_path):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": []}})
    (cfg / "script.jsonl").write_text("".join(f'{{"text": "{t}"}}\n' for t in "ABCD"))
    work = tmp_path / "work"
    work.mkdir()
    store = HistoryStore()
    ns = SessionRequest(config=str(cfg / "raw.json"), cwd=work)
    session, _ = open_session(ns, interactive=False, store=store)
    await session.run_turn("first")
    await session.run_turn("second")
    assert (await send(session, cmd.Retry())).ok
    expected = session.conversation.messages()
    await session.close()

    resumed, history = open_session(replace(ns, continue_=True), interactive=False, store=store)
    assert [(m.role, m.text) for m in resumed.conversation.messages()] == [
        (m.role, m.text) for m in expected] == [("user", "first"), ("assistant", "A"),
                                                ("user", "second"), ("assistant", "C")]
    await resumed.close()


async def test_sessions_show_prints_the_whole_history_with_the_marker(tmp_path):
    from tests.config_kit import raw_tui

    h = make_session(tmp_path, LINES, store=HistoryStore())
    await h.session.run_turn("first")
    assert (await send(h.session, cmd.Retry())).ok
    turn = h.of(ev.UserMessage)[0].turn_id
    h.session.store.close()
    shown = raw_tui("sessions", "show", h.session.session_id, "--output", "text")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines == ["> first", "A",
                     f"[retried: the turns from {turn} on left the model's context]",
                     "> first", "B"]

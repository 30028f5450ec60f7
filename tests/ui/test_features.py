"""Issue 11's features by keyboard: retry and edit-and-resend, agent and model switch in the
palette, chat search, the first run's welcome screen."""

from __future__ import annotations

import msgspec
import pytest
from textual.command import CommandPalette

from raw_tui.protocol import bus as ev
from raw_tui.protocol.commands import (EditPrompt, Prompt, Reply, Retry, SwitchAgent, SwitchModel)
from raw_tui.ui.app import RawApp
from raw_tui.ui.prefs import load_prefs
from raw_tui.ui.welcome import WelcomeCard
from raw_tui.ui.widgets.chat_items import UserMessageView
from raw_tui.ui.widgets.chat_view import ChatView
from raw_tui.ui.widgets.composer import Composer
from raw_tui.ui.widgets.search_bar import SearchBar

from . import events as samples
from .events import retried, two_turns
from .fake_session import connect
from .screenshot_kit import flat, screen_text


# retry and edit -----------------------------------------------------------------------------
async def test_ctrl_r_retries_and_the_replaced_turn_leaves_the_chat(session):
    app = RawApp(connect(session))
    received = []
    async with app.run_test(size=(80, 24), message_hook=received.append) as pilot:
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert session.sent(Retry) == [Retry()]
        session.publish(*retried())
        await pilot.pause()
        text = flat(screen_text(app))
        assert "answer beta" not in text and "answer gamma" in text
        assert text.count("second question") == 1
        assert "↻ retried" in text
        assert [v.turn_id for v in app.query(UserMessageView)] == ["t1", "t3"]
        assert any(isinstance(getattr(m, "event", None), ev.TurnRewind) for m in received)


async def test_a_refused_retry_says_why(session):
    session.replies[Retry] = Reply(ok=False, code="rewind_unavailable",
                                   message="nothing to retry: no prompt in the conversation")
    app = RawApp(connect(session))
    said = []
    app.notify = lambda message, **kw: said.append(message)  # toasts are not in screenshots
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert said == ["nothing to retry: no prompt in the conversation"]


async def test_a_replayed_session_shows_what_the_model_saw(session):
    app = RawApp(connect(session, replay=two_turns() + retried()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = flat(screen_text(app))
        assert "answer beta" not in text
        assert "first question" in text and "answer gamma" in text


@pytest.mark.parametrize("replayed", [False, True], ids=["live", "replayed"])
async def test_a_panel_drawn_in_a_replaced_turn_stays(session, replayed):
    """Panels are the session's state, which a retry does not undo: the panel keeps its
    place (also when the history is drawn again), only the turn's rows go."""
    turns = two_turns()
    turns.insert(4, samples.panel([samples.BLOCKS["steps"]], pid="steps", placement="chat",
                            title="Steps"))
    events = turns + retried()
    app = RawApp(connect(session, replay=events if replayed else None))
    async with app.run_test(size=(80, 24)) as pilot:
        if not replayed:
            session.publish(*events)
        await pilot.pause()
        text = flat(screen_text(app))
        assert "answer beta" not in text and "answer gamma" in text
        assert "Steps" in text and "Configure" in text
        assert text.index("Configure") < text.index("↻ retried")


async def test_e_on_a_prompt_edits_it_and_enter_resends_it_in_its_place(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("tab")  # to the chat; its cursor starts on the newest row
        assert isinstance(app.focused, ChatView)
        for _ in range(10):
            await pilot.press("up")
        await pilot.press("e")
        await pilot.pause()
        composer = app.query_one(Composer)
        assert app.focused is composer and composer.text == "first question"
        assert "✎ editing a prompt · Enter resends it (replaces what followed) · Esc stops" in screen_text(app)
        await pilot.press("ctrl+u", *"first, better", "enter")
        await pilot.pause()
        assert session.sent(EditPrompt) == [EditPrompt(turn_id="t1", text="first, better")]
        assert session.sent(Prompt) == []
        assert "✎ editing a prompt" not in screen_text(app)
        # the session answers with the rewind: every turn from t1 on leaves the chat
        session.publish(ev.TurnRewind(from_turn="t1", reason="edit", turn_id="t4"),
                        ev.UserMessage(text="first, better", turn_id="t4"))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "first question" not in text and "second question" not in text
        assert "first, better" in text and "✎ prompt edited" in text


async def test_esc_stops_editing_and_enter_on_a_prompt_edits_too(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("tab")  # the chat's cursor starts on the newest row
        chat = app.query_one(ChatView)
        while not isinstance(chat.cursor.widget, UserMessageView):
            await pilot.press("up")
        await pilot.press("enter")
        await pilot.pause()
        assert app.query_one(Composer).text == "second question"
        await pilot.press("escape")
        await pilot.pause()
        assert app.main.conversation.prompts.editing is None and app.query_one(Composer).text == ""
        await pilot.press(*"new one", "enter")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="new one")]
        assert session.sent(EditPrompt) == []


# agent and model switch ---------------------------------------------------------------------
async def test_the_palette_switches_model_and_agent_and_the_status_line_shows_it(session):
    session.info = msgspec.structs.replace(session.info, agents=["demo", "reviewer"],
                                           models=["scripted", "local"])
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Agent: reviewer", "Model: local"} <= set(titles)
        assert "Model: scripted" not in titles and "Agent: demo" not in titles  # current
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Model: local")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert session.sent(SwitchModel) == [SwitchModel(model="local")]
        session.publish(ev.AgentModel(agent="demo", model="local"))
        await pilot.pause()
        assert "demo · local" in screen_text(app).split("\n")[-1]
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Model: scripted" in titles and "Model: local" not in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Agent: reviewer")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert session.sent(SwitchAgent) == [SwitchAgent(agent="reviewer")]
        session.publish(ev.AgentModel(agent="reviewer", model="scripted"))
        await pilot.pause()
        assert "reviewer · scripted" in screen_text(app).split("\n")[-1]
        assert "from now on: agent reviewer · model scripted" in flat(screen_text(app))


# search ---------------------------------------------------------------------------------------
async def test_ctrl_f_finds_rows_and_enter_steps_through_them_newest_first(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("ctrl+f")
        await pilot.pause()
        bar = app.query_one(SearchBar)
        assert bar.display and app.focused is bar.input
        await pilot.press(*"ANSWER")
        await pilot.pause()
        chat = app.query_one(ChatView)
        assert "1/2" in screen_text(app)
        assert chat.cursor.widget.plain_text() == "answer beta"  # the newest match first
        assert len(app.query(".-match")) == 2
        await pilot.press("enter")
        await pilot.pause()
        assert "2/2" in screen_text(app) and chat.cursor.widget.plain_text() == "answer alpha"
        await pilot.press("enter")  # wraps around
        assert chat.cursor.widget.plain_text() == "answer beta"
        await pilot.press("up")  # the newer one: wraps the other way
        assert chat.cursor.widget.plain_text() == "answer alpha"
        await pilot.press("escape")
        await pilot.pause()
        assert not bar.display and app.focused is chat and not app.query(".-match")
        await pilot.press("n")  # the last search again, from the chat, without the bar
        await pilot.pause()
        assert not bar.display and chat.cursor.widget.plain_text() == "answer beta"


async def test_slash_in_the_chat_searches_and_n_steps_from_the_chat(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(*two_turns())
        await pilot.pause()
        await pilot.press("tab", "slash")
        await pilot.pause()
        bar = app.query_one(SearchBar)
        assert app.focused is bar.input
        await pilot.press(*"question", "escape")
        await pilot.pause()
        chat = app.query_one(ChatView)
        assert app.focused is chat and chat.cursor.widget.plain_text() == "second question"
        await pilot.press("n")
        assert chat.cursor.widget.plain_text() == "first question"
        await pilot.press("N")
        assert chat.cursor.widget.plain_text() == "second question"
        await pilot.press("ctrl+f")
        await pilot.press("ctrl+u", *"zebra")
        await pilot.pause()
        assert "no match" in screen_text(app)


async def test_slash_in_the_empty_composer_still_starts_a_slash_command(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"/clear", "enter")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="/clear")]
        assert not app.query_one(SearchBar).display


# welcome --------------------------------------------------------------------------------------
@pytest.fixture
def first_run(monkeypatch):
    monkeypatch.delenv("RAW_TUI_WELCOME", raising=False)


async def test_the_first_run_welcomes_once_and_takes_no_key(session, first_run, tmp_path):
    prefs = tmp_path / "ui.json"
    # a hosted session's snapshot replays its opening events: still a first run
    app = RawApp(connect(session, replay=[ev.SessionStart(session_id="s-test", agent="demo")]),
                 prefs_path=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.query(WelcomeCard) and app.screen is app.main
        text = flat(screen_text(app))
        assert "passes a gate" in text and "approve (a) or deny (d) it here" in text
        assert "^P commands" in text and "Alt+Enter newline" in text
        await pilot.press(*"hello")
        await pilot.pause()
        assert app.query_one(Composer).text == "hello"  # every key typed, the first too
        await pilot.press("enter")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="hello")]
    assert load_prefs(prefs)[0].welcome_seen
    again = RawApp(connect(session), prefs_path=prefs)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not again.query(WelcomeCard)


async def test_no_welcome_for_a_resumed_session_or_when_switched_off(session, first_run,
                                                                    monkeypatch, tmp_path):
    prefs = tmp_path / "ui.json"
    app = RawApp(connect(session, replay=two_turns()), prefs_path=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.query(WelcomeCard)
    monkeypatch.setenv("RAW_TUI_WELCOME", "off")
    app = RawApp(connect(session), prefs_path=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.query(WelcomeCard)
    assert not prefs.exists()

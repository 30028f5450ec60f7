"""Interaction requests: the form opens where its panel is, Ctrl+S submits, Esc cancels."""

from __future__ import annotations

from raw_tui import bus as ev
from raw_tui.commands import FormAnswer, FormCancel, Reply
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.composer import Composer
from raw_tui.ui.widgets.form_view import FormView
from raw_tui.ui.widgets.sidebar import Sidebar

from . import events as samples
from .fake_session import connect
from .helpers import screen_text

PANEL = "builtin/todo#ask"


async def _ask(session, pilot, placement="sidebar"):
    session.publish(samples.panel([samples.FORM], pid="ask", placement=placement, title="Question"),
                    ev.InteractionRequest(request_id="r1", panel=PANEL))
    await pilot.pause()
    await pilot.pause()


async def test_form_takes_focus_and_ctrl_s_submits_the_answers(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask(session, pilot)
        form = app.query_one(FormView)
        assert form.request_id == "r1" and app.focused in form.query("*")
        assert "1 question" in screen_text(app)
        await pilot.press(*"Ada", "tab", "down", "enter", "tab", "enter", "down", "down",
                          "enter", "ctrl+s")
        await pilot.pause()
        (answer,) = session.sent(FormAnswer)
        assert answer.request_id == "r1"
        assert answer.answers == {"name": "Ada", "color": "blue", "tags": ["x", "z"]}
        assert answer.idempotency_key
        session.publish(ev.InteractionSettled(request_id="r1", status="answered"))
        await pilot.pause()
        assert form.request_id is None and "(answered)" in screen_text(app)
        assert isinstance(app.focused, Composer)
        assert "question" not in screen_text(app).split("\n")[-1]


async def test_a_refused_answer_shows_the_message_and_keeps_the_form_open(session):
    session.replies[FormAnswer] = Reply(ok=False, code="interaction_invalid",
                                        message="name: required")
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask(session, pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "✘ name: required" in screen_text(app)
        assert app.query_one(FormView).request_id == "r1"


async def test_escape_cancels_the_request(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask(session, pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert session.sent(FormCancel) == [FormCancel(request_id="r1")]
        session.publish(ev.InteractionSettled(request_id="r1", status="cancelled"))
        await pilot.pause()
        assert "(cancelled)" in screen_text(app)


async def test_a_form_in_a_hidden_sidebar_opens_it_and_closes_it_after(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        assert not app.query_one(Sidebar).display
        await _ask(session, pilot)
        assert app.query_one(Sidebar).display
        assert "Your name" in screen_text(app)
        session.publish(ev.InteractionSettled(request_id="r1", status="cancelled"))
        await pilot.pause()
        assert not app.query_one(Sidebar).display


async def test_a_chat_placement_form_opens_inline(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await _ask(session, pilot, placement="chat")
        form = app.query_one("#chat").query_one(FormView)
        assert form.request_id == "r1" and app.focused in form.query("*")


async def test_request_before_its_panel_opens_when_the_panel_arrives(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(ev.InteractionRequest(request_id="r1", panel=PANEL))
        await pilot.pause()
        session.publish(samples.panel([samples.FORM], pid="ask"))
        await pilot.pause()
        assert app.query_one(FormView).request_id == "r1"


async def test_choices_read_without_colour(session, monkeypatch):
    """Chosen and unchosen options differ in the text itself, not only in colour."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask(session, pilot)
        lines = screen_text(app).split("\n")
        assert any("( ) Red" in line for line in lines)
        assert any("[ ] X" in line for line in lines)
        await pilot.press("tab", "down", "enter", "tab", "enter")  # Blue; tag X
        await pilot.pause()
        lines = screen_text(app).split("\n")
        assert any("( ) Red" in line for line in lines)
        assert any("(•) Blue" in line for line in lines)
        assert any("[x] X" in line for line in lines)
        assert any("[ ] Y" in line for line in lines)

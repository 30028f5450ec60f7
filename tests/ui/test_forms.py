"""Interaction requests: the form opens where its panel is, Ctrl+S submits, Esc cancels."""

from __future__ import annotations

from raw_tui.protocol import bus as ev
from raw_tui.protocol.commands import FormAnswer, FormCancel, Reply
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.composer import Composer
from raw_tui.ui.widgets.form_view import FormView
from raw_tui.ui.widgets.sidebar import Sidebar

from . import events as samples
from .fake_session import connect
from .screenshot_kit import flat, screen_text

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


# issue 11 defect 5: forms at 60×20, in a narrow sidebar, and Ctrl+S from anywhere ----------
QUESTION = "Which colour should the next demo use?"
COLOURS = ["Red", "Blue", "Green", "Amber", "Cyan", "Lime", "Pink", "Teal", "Gold", "Grey",
           "Navy", "Plum", "Rose", "Sand", "Snow", "Wine"]
LONG_FORM = {"id": "ask", "kind": "form", "fields": [
    {"id": "colour", "kind": "single_select", "label": QUESTION, "required": True,
     "options": [{"id": c.lower(), "label": c} for c in COLOURS]},
    {"id": "comment", "kind": "text", "label": "Anything else? (optional)", "multiline": True},
]}


async def _ask_long(session, pilot, placement="chat", form=LONG_FORM):
    session.publish(ev.UserMessage(text="Tidy the notes file, please."),
                    ev.AssistantText(text="Sure. " * 60),
                    samples.panel([form], pid="ask", placement=placement, title="A question"),
                    ev.InteractionRequest(request_id="r1", panel=PANEL))
    await pilot.pause()
    await pilot.pause()


async def test_at_60x20_the_question_stays_above_the_options_it_asks_about(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(60, 20)) as pilot:
        await _ask_long(session, pilot)
        assert QUESTION in screen_text(app)
        for i in range(1, len(COLOURS)):  # down the whole list, one option at a time
            await pilot.press("down")
            await pilot.pause()
            text = screen_text(app)
            assert QUESTION in text and f"{COLOURS[i]}" in text, (i, text)
        await pilot.press("enter", "tab")  # Wine; then the comment field, then back
        await pilot.pause()
        assert "Anything else? (optional)" in screen_text(app)
        await pilot.press("shift+tab")
        await pilot.pause()
        text = screen_text(app)
        assert QUESTION in text and "(•) Wine" in text, text


async def test_a_long_label_wraps_in_the_sidebar_instead_of_being_cut(session):
    label = ("Before I rewrite the notes file, which of these colours should the next "
             "demo use for its headings and its borders?")
    form = {"id": "ask", "kind": "form", "fields": [
        {"id": "colour", "kind": "single_select", "label": label,
         "options": [{"id": "red", "label": "Red"}, {"id": "blue", "label": "Blue"}]}]}
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask_long(session, pilot, placement="sidebar", form=form)
        sidebar = app.query_one(Sidebar)
        assert sidebar.display and sidebar.size.width < 50
        left = sidebar.region.x + 1  # the sidebar's columns only, without the form's border
        shown = "\n".join(line[left:].replace("│", " ")
                          for line in screen_text(app).split("\n"))
        assert flat(label) in flat(shown), shown


async def test_ctrl_s_submits_the_pending_form_with_focus_in_the_sidebar(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["checklist"]], title="Plan"))
        await _ask_long(session, pilot)  # in the chat
        await pilot.press("enter")  # Red
        app.query_one(Sidebar).focus()
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        (answer,) = session.sent(FormAnswer)
        assert answer.request_id == "r1" and answer.answers == {"colour": "red"}


async def test_ctrl_s_with_no_pending_form_says_so(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        session.publish(samples.panel([samples.BLOCKS["checklist"]], title="Plan"))
        await pilot.pause()
        app.query_one(Sidebar).focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.pause()
        assert "no question is waiting" in flat(screen_text(app))
        assert session.sent(FormAnswer) == []


async def test_ctrl_s_outside_with_two_questions_waiting_says_which_to_pick(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        session.publish(samples.panel([samples.FORM], pid="ask", placement="chat", title="One"),
                        samples.panel([samples.FORM], pid="two", placement="chat", title="Two"),
                        ev.InteractionRequest(request_id="r1", panel=PANEL),
                        ev.InteractionRequest(request_id="r2", panel="builtin/todo#two"))
        await pilot.pause()
        await pilot.pause()
        app.query_one(Composer).focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "2 questions are waiting" in flat(screen_text(app))
        assert session.sent(FormAnswer) == []

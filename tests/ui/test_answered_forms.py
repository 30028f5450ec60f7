"""A form answered elsewhere (another attached client, the browser) shows the answers the
engine kept (`interaction_settled.answers`, docs/decisions.md): text, choice and
selection, disabled, under `(answered)`."""

from __future__ import annotations

from raw_tui.protocol import bus as ev
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.form_view import FormView

from . import events as samples
from .fake_session import connect
from .screenshot_kit import screen_text


async def test_answers_given_by_another_client_fill_the_form(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([samples.FORM], pid="ask", placement="chat",
                                      title="Question"),
                        ev.InteractionRequest(request_id="r1", panel="builtin/todo#ask"))
        await pilot.pause()
        await pilot.pause()
        session.publish(ev.InteractionSettled(request_id="r1", status="answered", answers={
            "name": "Grace", "color": "blue", "tags": ["x", "z"]}))
        await pilot.pause()
        await pilot.pause()
        form = app.query_one(FormView)
        assert form.request_id is None
        assert form.answers() == {"name": "Grace", "color": "blue", "tags": ["x", "z"]}
        text = screen_text(app)
        assert "Grace" in text and "(•) Blue" in text and "(answered)" in text

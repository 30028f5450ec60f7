"""The status line shows what follows the state whole or not at all (no `·` left dangling
before the blank up to the key hints, at any width); the command palette's search mark is
a glyph every terminal font has (Textual's 🔎 is a box in xterm and in Chromium)."""

from __future__ import annotations

import re

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.ui.app import RawApp

from . import events as samples
from .fake_session import connect
from .screenshot_kit import screen_text


def status(app) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("focus_form", [False, True])
async def test_no_separator_dangles_at_any_width(session, focus_form):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 24)) as pilot:
        session.publish(samples.panel([samples.FORM], pid="ask", title="A question"),
                        ev.InteractionRequest(request_id="r1", panel="builtin/todo#ask"))
        session.publish(ev.HooksReload(ok=False, message="agent/x: hook.json is not valid"))
        await pilot.pause()
        if not focus_form:
            app.main.query_one("Composer").focus()
        for width in range(40, 121, 4):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            line = status(app)
            assert not re.search(r"·\s{2,}", line), f"{width}: {line!r}"
            assert not line.rstrip().endswith("·"), f"{width}: {line!r}"
            assert "1 question" in line
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert "· scripted" in status(app)  # the model, when agent and model do not fit
        await pilot.resize_terminal(120, 24)
        await pilot.pause()
        assert "· demo · scripted · hooks reload rejected: agent/x" in status(app)


async def test_the_palettes_search_mark_is_no_emoji(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        text = screen_text(app)
        assert "🔎" not in text
        assert re.search(r"> +Search for commands", text), text

"""SVG snapshots (cursor blink off by default) at 80x24 and 120x40."""

from __future__ import annotations

import pytest

from raw_tui.protocol import bus as ev

from . import events as samples
from .snapshot_kit import CWD, at_each_size, make_app


def conversation(session):
    session.publish(ev.SessionStart(session_id="s1", agent="demo"),
                    ev.UserMessage(text="Tidy the notes file, please."),
                    ev.AssistantText(text="Sure. I will **rewrite** `notes.txt`."),
                    ev.HookEvent(id="logger", event="UserPromptSubmit", outcome="continued",
                                 duration_ms=4))


@at_each_size
def test_idle(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        conversation(session)
        session.publish(samples.panel([samples.BLOCKS["checklist"]], title="Plan",
                                progress={"done": 2, "total": 6}, summary="two done"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@at_each_size
def test_streaming(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        conversation(session)
        session.publish(ev.TurnState(state="running", step=2, max_steps=25))
        for word in "Here is the plan:\n\n1. read the file\n2. write it back".split(" "):
            session.publish(ev.AssistantDelta(text=word + " "))
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@at_each_size
def test_approval_modal(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        conversation(session)
        session.publish(*samples.write_call(f"{CWD}/notes.txt", rule=2))
        session.publish(*samples.write_call(f"{CWD}/other.txt", call_id="c2"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@at_each_size
def test_form(snap_compare, size):
    session, app = make_app()

    async def run_before(pilot):
        conversation(session)
        session.publish(samples.panel([samples.FORM], pid="ask", title="A question"),
                        ev.InteractionRequest(request_id="r1", panel="builtin/todo#ask"))
        await pilot.pause()
        await pilot.press(*"Ada")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


DEMO_FORM = {"id": "ask", "kind": "form", "fields": [
    {"id": "colour", "kind": "single_select", "label": "Which colour should the next demo use?",
     "required": True, "options": [{"id": c.lower(), "label": c}
                                   for c in ("Blue", "Green", "Amber", "Cyan", "Lime", "Pink",
                                             "Teal", "Gold", "Grey", "Navy", "Plum")]},
    {"id": "comment", "kind": "text", "label": "Anything else? (optional)", "multiline": True},
]}


def test_form_in_the_chat_at_60x20(snap_compare):
    """The question stays above its options (issue 11 defect 5); the list scrolls itself."""
    session, app = make_app()

    async def run_before(pilot):
        conversation(session)
        session.publish(samples.panel([DEMO_FORM], pid="ask", title="A question", placement="chat"),
                        ev.InteractionRequest(request_id="r1", panel="builtin/todo#ask"))
        await pilot.pause()
        await pilot.pause()
        await pilot.press(*["down"] * 9, "enter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(60, 20), run_before=run_before)


@pytest.mark.parametrize("kind", sorted(samples.BLOCKS))
def test_block_kind_in_sidebar(snap_compare, kind):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(samples.panel([samples.BLOCKS[kind]], title=f"Kind {kind}"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_all_blocks_sidebar_shown_at_80x24(snap_compare):
    session, app = make_app()

    async def run_before(pilot):
        session.publish(samples.panel([samples.BLOCKS[k] for k in ("checklist", "progress", "steps")],
                                title="Everything"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), press=["f2"], run_before=run_before)

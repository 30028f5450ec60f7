"""Live work on screen (issue 11, defect 7 and two items of defect 11): a running call moves
(spinner, elapsed time, its output as it arrives) and an idle screen has no timer; a call
the policy sends to approval says `asking`, never `allowed`; Ctrl+C says something."""

from __future__ import annotations

import asyncio
import re
import time

from raw_tui.protocol import bus as ev
from raw_tui.protocol.commands import Cancel, Quit
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.tool_call import ToolCallView

from .fake_session import connect
from .screenshot_kit import flat, screen_text

SLEEPY = {"commands": [{"command": "for i in 1 2 3; do echo tick $i; sleep 1; done"}]}


def bash_call(**verdict) -> ev.ToolCall:
    return ev.ToolCall(call_id="c1", identity="builtin/bash", name="bash", arguments=SLEEPY,
                       turn_id="t1", **verdict)


def row(app, tool: str = "bash") -> str:
    """The call's head row on the screen."""
    return next(line for line in screen_text(app).splitlines() if f"⚙ {tool}" in line)


async def assert_still(app, pilot) -> None:
    """Nothing on the screen moves by itself (no timer runs)."""
    before = screen_text(app)
    await asyncio.sleep(0.6)
    await pilot.pause()
    assert screen_text(app) == before


async def test_a_running_bash_call_shows_its_output_and_time_as_they_go(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(90, 30)) as pilot:
        session.publish(ev.TurnState(state="running", step=1, max_steps=25),
                        bash_call(policy="allow"),
                        ev.ToolOutput(call_id="c1", text=f"$ {SLEEPY['commands'][0]['command']}\n",
                                      turn_id="t1"),
                        ev.ToolOutput(call_id="c1", text="tick 1\n", turn_id="t1"))
        await pilot.pause()
        first = screen_text(app)
        assert "tick 1" in first and "running 0s" in row(app)
        spinner_at_start = row(app)
        await asyncio.sleep(0.4)
        await pilot.pause()
        assert row(app) != spinner_at_start  # the spinner turns by itself
        await asyncio.sleep(0.9)
        view = app.query_one(ToolCallView)
        sent = time.monotonic()
        session.publish(ev.ToolOutput(call_id="c1", text="tick 2\n", turn_id="t1"))
        await pilot.pause()
        second = screen_text(app)
        seen = time.monotonic()
        # the elapsed time shown is the call's own clock, read when the row was drawn (between
        # the publish and the capture); a slow machine may draw 2s here, never 0s
        shown = int(re.search(r"running (\d+)s", row(app)).group(1))
        assert "tick 2" in second and 1 <= shown
        assert int(sent - view.started) <= shown <= int(seen - view.started)
        assert second != first
        assert view.ticker is not None

        # the result replaces the live output; nothing moves any more
        session.publish(ev.ToolResultEvent(call_id="c1", isError=False, turn_id="t1", content=[
            {"type": "text", "text": "$ for ...\ntick 1\ntick 2\ntick 3\nexit 0"}]),
            ev.TurnState(state="idle"), ev.RunEnd(status="completed", turn_id="t1"))
        await pilot.pause()
        assert view.ticker is None and "running" not in row(app)
        await assert_still(app, pilot)


async def test_long_live_output_shows_its_last_lines_cleaned(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(90, 30)) as pilot:
        session.publish(bash_call(policy="allow"), ev.ToolOutput(
            call_id="c1", text="".join(f"line {i}\n" for i in range(40))
            + "\x1b[31mred\x1b[0m\nbar 10%\rbar 90%\r", turn_id="t1"))
        await pilot.pause()
        text = screen_text(app)
        assert "line 39" in text and "line 30" not in text
        assert "earlier lines" in text
        assert "│ red" in text and "bar 90%" in text and "bar 10%" not in text
        assert "\x1b" not in text and "[31m" not in text
        session.publish(ev.ToolOutput(call_id="c1", text="tail end\n", cut=5000, turn_id="t1"))
        await pilot.pause()
        assert "│ [… 5000 bytes not shown …]" in screen_text(app)
        app.query_one(ToolCallView).stop_running()


async def test_an_idle_screen_and_a_replayed_call_start_no_timer(session):
    # a call from the saved history that never got its result: drawn, not running
    app = RawApp(connect(session, replay=[bash_call(policy="allow")]))
    async with app.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        view = app.query_one(ToolCallView)
        assert view.ticker is None and "running" not in row(app)
        await assert_still(app, pilot)


async def test_a_call_sent_to_approval_says_asking_never_allowed(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(90, 30)) as pilot:
        args = {"path": "notes.txt", "content": "hi"}
        session.publish(ev.ToolCall(call_id="w1", identity="builtin/write_file",
                                    name="write_file", arguments=args, policy="ask", rule=2))
        await pilot.pause()
        head = row(app, "write_file")
        assert "asking by rule #2" in head and "allowed" not in head
        assert "running" not in head
        session.publish(ev.ApprovalRequest(call_id="w1", identity="builtin/write_file",
                                           name="write_file", arguments=args, rule=2))
        await pilot.pause()
        await pilot.pause()
        app.screen.dismiss(None)  # the modal; the row behind it is what this is about
        await pilot.pause()
        assert "asking by rule #2 · waiting for approval" in flat(screen_text(app))
        session.publish(ev.ApprovalDecision(call_id="w1", allow=True))
        await pilot.pause()
        head = row(app, "write_file")
        assert "asked by rule #2 → approved" in head and "running 0s" in head
        app.query_one(ToolCallView).stop_running()


async def test_ctrl_c_cancels_a_running_turn_and_says_so(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(90, 30), notifications=True) as pilot:
        session.publish(ev.TurnState(state="running", step=1, max_steps=25))
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
        assert session.sent(Cancel) == [Cancel()]
        assert "Ctrl+C: cancelling the turn (esc does the" in flat(screen_text(app))


async def test_ctrl_c_when_idle_says_how_to_quit_and_twice_quits(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(90, 30), notifications=True) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
        text = flat(screen_text(app))
        assert "Ctrl+C again to quit" in text and "^q quits" in text
        assert session.sent(Quit) == [] and app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert session.sent(Quit) == [Quit()]

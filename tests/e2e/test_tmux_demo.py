"""The installed `raw-tui` in a real terminal (tmux, 80×24, keyboard only), driving the
built-in demo end to end: prompt, streamed text, the approval modal with the effect path,
the form, panel actions, a clean quit; then `--continue` shows it all again.

Every step polls `capture-pane` until its text appears (or a deadline passes); no fixed
sleeps. Skipped only when tmux is missing.
"""

from __future__ import annotations

import re

import json
from pathlib import Path

import pytest

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, demo_note, flat, isolated_env, needs_tmux,
                                    place, quit_app, raw_tui_cli, status_line, prompt_demo)

__all__ = ["place"]

pytestmark = needs_tmux


def run_demo(tmux: Tmux, note: Path) -> None:
    """Drive the demo from its first screen to its last message."""
    tmux.wait_for(lambda s: "idle" in status_line(s) and "^q quit" in status_line(s))
    tmux.type("hello demo")
    tmux.keys("Enter")
    # the prompt in the chat, unless on a quick machine the reply already scrolled it away
    # under the approval modal (the saved session shows it: see the sessions list below)
    tmux.wait_for(lambda s: flat("› hello demo") in flat(s) or "Approve write_file?" in s)
    # the approval modal: the intended effect (operation, absolute path) apart from the
    # arguments, the diff preview, then the arguments
    screen = tmux.wait_for(lambda s: "Approve write_file?" in s and "Arguments" in s
                           and str(note) in s)
    effects = screen[screen.index("Intended effects"):screen.index("Preview (not written)")]
    assert "write" in effects and str(note) in effects
    assert not note.exists()  # nothing written before the answer
    tmux.keys("a")
    tmux.wait_for(lambda s: "Approve write_file?" not in s)
    tmux.wait_for(lambda s: note.exists())
    assert note.read_text() == "Written by the raw-tui demo.\n"
    # the form (ask_user, in the chat): choose the second colour, submit with Ctrl+S
    tmux.wait_for(lambda s: "Which colour should the next demo use?" in s
                  and "( ) Blue" in s and "( ) Green" in s and "Ctrl+S submit" in s)
    tmux.keys("Down")
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "(•) Green" in s and "( ) Blue" in s)
    tmux.keys("C-s")
    tmux.wait_for("(answered)")
    # streamed text: the script's last message, then the turn ends
    tmux.wait_for("All done. Try a panel action")
    tmux.wait_for(lambda s: "idle" in status_line(s))


def test_demo_end_to_end_in_tmux_at_80x24(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        run_demo(tmux, demo_note(env))

        # a tool action from the sidebar, keyboard only: F2 shows the panels and focuses
        # them; the cursor starts on the todo panel's header, and one Down reaches Plan's.
        tmux.keys("F2")
        tmux.wait_for(lambda s: "Demo plan" in s and "Plan r1" in s
                      and "panels ↑↓" in status_line(s))
        tmux.keys("Down")
        tmux.keys("Enter")
        screen = tmux.wait_for("Redraw the plan")
        assert "Ask the agent to explain the plan" in screen
        tmux.keys("Down", "Enter")
        tmux.wait_for("Plan r2")
        tmux.wait_for("3 steps · redrawn from the panel")
        # the redrawn `graph LR` is drawn left to right (the panels have the full width)
        tmux.wait_for("│ Look │─────▶│ Plan │─────▶│ Write │─────▶│ Ask │")

        # a prompt action from the palette drafts text into the composer
        tmux.keys("C-p")
        tmux.wait_for("Search for commands")
        tmux.type("explain the plan")
        tmux.wait_for("Plan: Ask the agent to explain the plan")
        tmux.keys("Enter")
        tmux.wait_for("Explain the plan in plan, step by step.")

        # Ctrl+Q closes the session and the process exits 0, saying how to come back
        exit_screen = quit_app(tmux)
    finally:
        tmux.kill()

    listing = raw_tui_cli(env, place / "w", "sessions", "list")
    assert listing.returncode == 0, listing.stderr
    (row,) = listing.stdout.splitlines()
    session_id = row.split()[0]
    unwrapped = "".join(exit_screen.split())  # the hint wraps at 80 columns
    assert "raw-tui--continue" in unwrapped  # the program as it was run, to the pane
    assert f"raw-tui--resume{session_id}" in unwrapped
    assert "hello demo" in row and str(place / "w") in row
    shown = raw_tui_cli(env, place / "w", "sessions", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    events = [json.loads(line) for line in shown.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "session_start"
    assert {"user_message", "assistant_text", "approval_request", "interaction_settled",
            "panel_state", "run_end"} <= set(kinds)
    assert [e["allow"] for e in events if e["type"] == "approval_decision"] == [True]
    redraws = [e for e in events if e["type"] == "panel_state"
               and e["panel"].endswith("#plan") and e["revision"] == 2]
    assert redraws, "the Redraw action did not reach the plan panel"
    # closed cleanly: the last state published is `closing` (Session.close ran)
    states = [e["state"] for e in events if e["type"] == "turn_state"]
    assert states[-1] == "closing"


def test_the_demo_previews_bash_then_runs_again_and_clear_empties_the_screen(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        run_demo(tmux, demo_note(env))
        # the demo's last step: a bash command previewed in the sandbox before it lands
        tmux.type("show me bash")
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "Approve bash?" in s and "hello.txt" in s)
        assert "dry run · network off" in screen, screen
        assert not (place / "w" / "raw-tui-demo").exists()  # nothing landed before the answer
        tmux.keys("a")
        tmux.wait_for(lambda s: "Approve bash?" not in s and "idle" in status_line(s))
        assert (place / "w" / "raw-tui-demo" / "hello.txt").read_text() == \
            "previewed in the sandbox before it landed\n"
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.type("what else can you do?")
        tmux.keys("Enter")
        # any prompt after the end runs the demo again, saying so first
        tmux.wait_for("Approve write_file?")
        tmux.keys("d")
        tmux.wait_for("Ctrl+S submit")
        tmux.keys("Escape")  # the question declined: the demo goes on to its end
        tmux.wait_for(lambda s: "All done. Try a panel action" in s
                      and "idle" in status_line(s))
        tmux.type("/clear")
        tmux.keys("Enter")
        screen = tmux.wait_for("conversation cleared")
        assert "All done" not in screen and "hello demo" not in screen
        quit_app(tmux)
    finally:
        tmux.kill()
    (row,) = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
    shown = raw_tui_cli(env, place / "w", "sessions", "show", row.split()[0]).stdout
    texts = [e["text"] for e in map(json.loads, shown.splitlines())
             if e["type"] == "assistant_text"]
    replay = next(t for t in texts if "here it is again from the top" in t)
    assert replay.startswith("I'm the scripted demo") and "--model" in replay
    assert "Hi! I'm the raw-tui demo" in replay


def test_continue_shows_the_earlier_chat_and_panels(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        run_demo(tmux, demo_note(env))
        quit_app(tmux)
    finally:
        tmux.kill()

    tmux = Tmux(width=120, height=40, env=env)  # wide: the sidebar shows
    try:
        tmux.start([str(RAW_TUI), "--continue"], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        screen = tmux.wait_for("All done. Try a panel action")
        # the panels as they were: the checklist all done, the plan at r1, drawn
        assert "Demo plan r5" in screen and "✔ Ask you a question" in screen, screen
        assert "Plan r1" in screen and re.search(r"│ Look +│", screen), screen
        assert "(answered)" in screen, screen  # the form, as it ended
        # scrolling back with the keyboard reaches the first message
        tmux.keys("Tab")
        tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))
        tmux.keys(*["Up"] * 60)
        tmux.wait_for("› hello demo")
        quit_app(tmux)
    finally:
        tmux.kill()


def test_the_palette_reopens_a_saved_session(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        prompt_demo(tmux, "hello demo")
        quit_app(tmux)  # with the approval pending
    finally:
        tmux.kill()

    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")  # a new, empty session
        screen = tmux.wait_for(lambda s: "idle" in status_line(s))
        assert "hello demo" not in screen
        tmux.keys("C-p")
        tmux.wait_for("Search for commands")
        tmux.type("Resume")
        tmux.wait_for("Resume: hello demo")
        tmux.keys("Enter")
        # the same terminal, now the saved session: its chat up to the cancelled turn
        tmux.wait_for("Now a file write.")
        tmux.wait_for(lambda s: "▸ Demo plan r3" in s and "turn cancelled" in s)
        tmux.keys("Tab")
        tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))
        tmux.keys(*["Up"] * 40)
        tmux.wait_for("› hello demo")
        quit_app(tmux)
    finally:
        tmux.kill()
    listing = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
    assert len(listing) == 1  # the new session left before anything happened in it is not kept


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_small_windows_show_the_checklist_and_the_diagram_by_keyboard(place, size):
    """80×24 (an everyday SSH window) and 60×20: the panels are one view away. A line above
    the composer says a panel changed; Tab from the chat switches to the panels."""
    env = isolated_env(place)
    tmux = Tmux(env=env, width=size[0], height=size[1])
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.type("hello demo")
        tmux.keys("Enter")
        tmux.wait_for("Demo plan updated · F2 or Tab to the panels")
        tmux.wait_for("Approve write_file?")
        tmux.keys("a")
        # the form active (its hint shows), not only drawn: the panel comes a moment before
        # the question that activates it
        tmux.wait_for(lambda s: "Which colour should the next demo use?" in s
                      and "Ctrl+S submit" in s)
        tmux.keys("Down")
        tmux.keys("Enter")
        # the question stays on screen above the option chosen (issue 11 defect 5)
        tmux.wait_for(lambda s: "(•) Green" in s
                      and "Which colour should the next demo use?" in s)
        tmux.keys("C-s")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.keys("Tab")  # composer → chat
        tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))
        tmux.keys("Tab")  # chat → the panels
        screen = tmux.wait_for(lambda s: "panels ↑↓" in status_line(s))
        assert "Look around the project" in screen and "Ask you a question" in screen
        tmux.keys("Down", "Right")  # the Plan panel (one Down), then into its blocks
        for _ in range(30):  # move down through them until the diagram's end shows
            if "│ Ask │" in tmux.screen():
                break
            tmux.keys("Down")
        tmux.wait_for(lambda s: "│ Ask │" in s and "│ Write │" in s)
        quit_app(tmux)
    finally:
        tmux.kill()


def test_a_theme_chosen_in_the_palette_is_remembered(place):
    """Issue 11: the palette's theme is written to the XDG state dir, read at the next start."""
    env = isolated_env(place)
    remembered = Path(env["XDG_STATE_HOME"]) / "raw-tui" / "ui.json"
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        tmux.keys("C-p")
        tmux.wait_for("Search for commands")
        tmux.type("Theme")
        tmux.wait_for("Change the current theme")
        tmux.keys("Enter")
        tmux.wait_for("Search for themes")
        tmux.type("nord")
        tmux.wait_for(lambda s: "nord" in s.split("Search for themes", 1)[-1])
        tmux.keys("Enter")
        tmux.wait_for(lambda s: remembered.exists())
        quit_app(tmux)
    finally:
        tmux.kill()
    assert json.loads(remembered.read_text()) == {"theme": "nord"}

"""What a key shows at 80×24 (the installed `raw-tui`, keys as terminal bytes): after a
panel's prompt action is sent from the full-width panels the chat comes back with the answer;
F1's help shows the focused widget's text whole and raw-tui's keys, not Textual's generic
scroll and cursor keys."""

from __future__ import annotations

from tests.e2e.terminal_kit import (EXITED, KEY_BYTES, RAW_TUI, Tmux, flat, isolated_env,
                                    needs_tmux, place, send_bytes, status_line)
from tests.e2e.terminal_kit import demo_note
from tests.e2e.test_form_keys import _at_the_form
from tests.e2e.test_tmux_demo import run_demo

__all__ = ["place"]

pytestmark = needs_tmux
KEYS = KEY_BYTES["xterm"]


def test_a_prompt_sent_from_the_panels_at_80_columns_shows_its_answer(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        run_demo(tmux, demo_note(env))
        send_bytes(tmux, KEYS["f2"])  # the panels, full width
        tmux.wait_for(lambda s: "Plan r1" in s and "panels ↑↓" in status_line(s))
        send_bytes(tmux, KEYS["down"])
        send_bytes(tmux, KEYS["enter"])
        tmux.wait_for("Ask the agent to explain the plan")
        send_bytes(tmux, KEYS["enter"])  # the prompt action: drafted into the composer
        tmux.wait_for("Explain the plan in plan, step by step.")
        send_bytes(tmux, KEYS["enter"])  # sent
        screen = tmux.wait_for(lambda s: "idle" in status_line(s)
                               and flat("› Explain the plan") in flat(s))
        assert "panels ↑↓" not in status_line(screen) and "Plan r1" not in screen
        tmux.keys("C-q")
        tmux.wait_for(EXITED)
    finally:
        tmux.kill()


COMPOSER_HELP = ("Type a message. Enter sends; Alt+Enter, Ctrl+J (and Shift+Enter where the "
                 "terminal tells it from Enter) add a newline; Up/Down walk the history.")
GENERIC = ("Cursor line start", "Cursor page up", "Scroll Home", "Scroll Left", "Page Left",
           "Scroll End")


def test_f1_shows_the_whole_help_and_raw_tuis_keys_at_80x24(place):
    tmux = Tmux(env=isolated_env(place))
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        send_bytes(tmux, KEYS["f1"])
        screen = tmux.wait_for(lambda s: "Newline" in s and "History" in s)
        help_column = "\n".join(line.split("▏", 1)[1] for line in screen.split("\n")
                                if "▏" in line)
        assert flat(COMPOSER_HELP) in flat(help_column), screen
        assert not any(g in screen for g in GENERIC), screen
        send_bytes(tmux, KEYS["tab"])  # the chat's help and keys
        screen = tmux.wait_for(lambda s: "The conversation." in s and "Edit prompt" in s)
        assert not any(g in screen for g in GENERIC), screen
        send_bytes(tmux, KEYS["f1"])
        tmux.wait_for(lambda s: "The conversation." not in s)
        tmux.keys("C-q")
        tmux.wait_for(EXITED)
    finally:
        tmux.kill()


def test_at_60x20_a_forms_keys_show_and_the_status_line_keeps_the_model(place):
    tmux = Tmux(env=isolated_env(place), width=60, height=20)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        screen = _at_the_form(tmux, focused=False)
        screen = tmux.wait_for(lambda s: "Ctrl+S submit · Esc cancel" in s
                               and "Which colour should the next demo use?" in s)
        assert "1 question · demo · demo" in status_line(screen), screen
        send_bytes(tmux, KEYS["down"])
        send_bytes(tmux, KEYS["enter"])
        send_bytes(tmux, KEYS["ctrl+s"])  # it answers (the turn then ends)
        tmux.wait_for(lambda s: "idle" in status_line(s) and "question" not in status_line(s))
        tmux.keys("C-q")
        tmux.wait_for(EXITED)
    finally:
        tmux.kill()

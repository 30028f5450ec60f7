"""An answered form drawn again shows its answers (docs/decisions.md): the demo's
question answered in the real UI (tmux, 80×24), then the terminal detached and `raw-tui
attach` draws the session from the host's snapshot, then Ctrl+Q and `--continue` draw it
from the saved history: both show the choice, and `(answered)`."""

from __future__ import annotations

from tests.e2e.terminal_kit import (EXITED, RAW_TUI, Tmux, demo_note, isolated_env,
                                    needs_tmux, place, quit_app, status_line, prompt_demo)

__all__ = ["place"]

pytestmark = needs_tmux


def answered(screen: str) -> bool:
    return "(•) Green" in screen and "(answered)" in screen


def test_an_answered_form_shows_its_answers_after_attach_and_continue(place):
    env = isolated_env(place)
    note = demo_note(env)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        prompt_demo(tmux, "hello")
        tmux.keys("a")
        tmux.wait_for(lambda s: note.exists() and "Ctrl+S submit" in s)
        tmux.keys("Down", "Enter")  # Green
        tmux.wait_for("(•) Green")
        tmux.keys("C-s")
        tmux.wait_for(lambda s: "All done. Try a panel action" in s and "idle" in status_line(s))
        tmux.keys("C-\\")  # detach: the host keeps the session
        tmux.wait_for(f"{EXITED}0")
    finally:
        tmux.kill()

    for argv in (["attach"], ["--continue"]):
        again = Tmux(env=env)
        try:
            again.start([str(RAW_TUI), *argv], cwd=place / "w")
            again.wait_for(lambda s: "idle" in status_line(s))
            again.keys("C-f")  # the search brings the form into view
            again.wait_for("search the chat")
            again.type("Which colour")
            again.wait_for(" 1/2")  # the form, then its call's block
            again.keys("Escape")
            again.wait_for(answered)
            quit_app(again)  # after attach: the session ends; --continue reopens the history
        finally:
            again.kill()

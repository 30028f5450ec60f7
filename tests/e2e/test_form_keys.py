"""A waiting form from the keyboard alone, keys as terminal bytes (the installed `raw-tui`,
the demo's question at 80×24 in tmux): letters typed on its options are not the chat's keys;
after leaving it (a search, Esc) Tab comes back to it, and so does Enter on its block."""

from __future__ import annotations

import json

from tests.e2e.terminal_kit import (EXITED, KEY_BYTES, RAW_TUI, Tmux, composer_lines,
                                    isolated_env, needs_tmux, place, raw_tui_cli, send_bytes,
                                    status_line)

__all__ = ["place"]

pytestmark = needs_tmux
KEYS = KEY_BYTES["xterm"]


def _at_the_form(tmux: Tmux, *, focused: bool = True) -> str:
    tmux.wait_for(lambda s: "idle" in status_line(s))
    tmux.type("hello demo")
    send_bytes(tmux, KEYS["enter"])
    tmux.wait_for("Approve write_file?")
    send_bytes(tmux, KEYS["a"])
    return tmux.wait_for(lambda s: "Which colour should the next demo use?" in s
                         and ("form" in status_line(s) or not focused))


def _press_until(tmux: Tmux, key: bytes, done, *, then: bytes = b"", tries: int = 12) -> None:
    """Send `key` (and `then`) until the screen satisfies `done`, each press given time to
    show."""
    for _ in range(tries):
        before = tmux.screen()
        send_bytes(tmux, key)
        if then:
            send_bytes(tmux, then)
        try:
            tmux.wait_for(lambda s: s != before, timeout=2)
        except AssertionError:
            pass
        if done(tmux.screen()):
            return
    raise AssertionError(f"never reached; the screen:\n{tmux.screen()}")


def test_a_waiting_form_is_reached_again_by_tab_and_by_enter(place):
    tmux = Tmux(env=isolated_env(place))
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        _at_the_form(tmux)
        for letter in "nNec/jk":  # the chat's one-letter keys: none acts inside the form
            send_bytes(tmux, letter.encode())
        screen = tmux.wait_for(lambda s: "form" in status_line(s))
        assert "search the chat" not in screen and "edit" not in status_line(screen)
        assert "copied" not in screen and "( ) Blue" in screen

        send_bytes(tmux, KEYS["ctrl+f"])  # away to the search, and back out of it
        tmux.wait_for("search the chat")
        send_bytes(tmux, KEYS["escape"])
        tmux.wait_for(lambda s: "search the chat" not in s and "form" not in status_line(s))
        send_bytes(tmux, KEYS["tab"])  # composer → the waiting form → chat → panels
        tmux.wait_for(lambda s: "form" in status_line(s))
        send_bytes(tmux, KEYS["down"])  # it still answers: choose Green
        send_bytes(tmux, KEYS["enter"])
        tmux.wait_for("(•) Green")

        # Enter on its block in the chat focuses it (the block has no actions)
        _press_until(tmux, KEYS["tab"], lambda s: "chat" in status_line(s))
        # the chat's cursor starts on its last row, the form's receipt: one Up is the form
        send_bytes(tmux, KEYS["up"])
        send_bytes(tmux, KEYS["enter"])
        screen = tmux.wait_for(lambda s: "form" in status_line(s) or "no actions" in s)
        assert "no actions here" not in screen
        send_bytes(tmux, KEYS["ctrl+s"])  # answered: the turn goes on to its end
        tmux.wait_for(lambda s: "idle" in status_line(s) and "question" not in status_line(s))
        tmux.keys("C-q")
        tmux.wait_for(EXITED)
    finally:
        tmux.kill()
    assert _settled(place, tmux.env) == ["answered"]


def _settled(place, env) -> list[str]:
    """How the saved session's questions ended."""
    rows = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
    shown = raw_tui_cli(env, place / "w", "sessions", "show", rows[0].split()[0]).stdout
    events = [json.loads(line) for line in shown.splitlines() if line.strip()]
    return [e["status"] for e in events if e["type"] == "interaction_settled"]


def test_after_answering_a_form_in_a_reattached_ui_the_composer_has_the_keys(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        _at_the_form(tmux)
        send_bytes(tmux, KEYS["ctrl+backslash"])  # detach: the question keeps waiting
        tmux.wait_for(EXITED)
    finally:
        tmux.kill()
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI), "attach"], cwd=place / "w")
        tmux.wait_for(lambda s: "Which colour" in s and "form" in status_line(s))
        send_bytes(tmux, KEYS["down"])
        send_bytes(tmux, KEYS["enter"])
        tmux.wait_for("(•) Green")
        send_bytes(tmux, KEYS["ctrl+s"])
        tmux.wait_for(lambda s: "1 question" not in status_line(s))
        tmux.type("typed after")
        screen = tmux.wait_for(lambda s: composer_lines(s) == ["typed after"])
        assert "form" not in status_line(screen)
        tmux.keys("C-q")
        tmux.wait_for(EXITED)
    finally:
        tmux.kill()

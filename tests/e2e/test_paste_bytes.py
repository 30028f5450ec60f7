"""A bracketed paste through real terminal bytes (tests/e2e/terminal_kit.py): whatever
arrives between `ESC[200~` and `ESC[201~` is text in the composer, whole, whatever escape
sequences it holds (a cursor-position report, an arrow key, its own CR): a paste never
becomes keystrokes, so a hostile clipboard cannot send a prompt past the composer
(raw_tui/ui/paste.py, docs/security.md)."""

from __future__ import annotations

import json
import time

from tests.e2e.terminal_kit import (EXITED, RAW_TUI, Tmux, composer_lines, isolated_env,
                                    needs_tmux, place, raw_tui_cli, send_bytes, status_line)

__all__ = ["place"]

PASTED = "one \x1b[12;5R two \x1b[A three\rfour"
START, END = b"\x1b[200~", b"\x1b[201~"


def _prompts(tmux: Tmux, place) -> list[str]:
    """The prompts saved in the session of the pane."""
    rows = raw_tui_cli(tmux.env, place / "w", "sessions", "list").stdout.splitlines()
    assert len(rows) == 1, rows
    shown = raw_tui_cli(tmux.env, place / "w", "sessions", "show", rows[0].split()[0]).stdout
    return [e["text"] for e in map(json.loads, shown.splitlines())
            if e.get("type") == "user_message"]


@needs_tmux
def test_a_paste_with_escape_sequences_and_a_cr_is_text_and_sends_nothing(place):
    tmux = Tmux(env=isolated_env(place), height=30)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        send_bytes(tmux, START + PASTED.encode() + END)
        screen = tmux.wait_for(lambda s: any("four" in line for line in composer_lines(s)))
        time.sleep(1.0)  # a prompt sent by the paste's CR would show by now
        screen = tmux.screen()
        assert "Approve" not in screen, screen
        assert "idle" in status_line(screen), screen
        assert _prompts(tmux, place) == []  # nothing was sent
        lines = composer_lines(screen)
        assert any("12;5R two" in line and "three" in line for line in lines), lines
        send_bytes(tmux, b"\r")  # Enter, typed: the pasted text is the prompt, whole
        tmux.wait_for("Approve write_file?")
        tmux.keys("d")
        assert _prompts(tmux, place) == [PASTED.replace("\r", "\n")]
    finally:
        try:
            tmux.keys("C-q")
            tmux.wait_for(lambda s: EXITED in s)
        finally:
            tmux.kill()

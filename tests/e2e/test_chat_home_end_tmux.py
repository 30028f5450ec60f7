"""Home and End in the chat, with the bytes real terminals send for them (tmux at 80×24, the
installed `raw-tui`): each form moves the chat's cursor to the first or last row and scrolls
there, so Enter on it edits that prompt. The scroll container's own Home/End only scrolled:
Enter then acted on the row the cursor had stayed on."""

from __future__ import annotations

import json

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, isolated_env, needs_tmux,  # noqa: F401
                                    place, quit_app, status_line)

pytestmark = needs_tmux

# (terminal, Home, End): the sequences Textual's parser reads as home/end
FORMS = [
    ("xterm", b"\x1b[H", b"\x1b[F"),
    ("xterm application keypad", b"\x1bOH", b"\x1bOF"),
    ("tmux, screen, linux console", b"\x1b[1~", b"\x1b[4~"),
    ("rxvt", b"\x1b[7~", b"\x1b[8~"),
]
LONG = "answer alpha\n\n" + "\n\n".join(f"line {i} of the long answer" for i in range(30))
EDIT_STRIP = "editing a prompt"


def send_bytes(tmux: Tmux, data: bytes) -> None:
    """These exact bytes to the pane, in one write (`send-keys -H`)."""
    tmux._tmux("send-keys", "-t", tmux.name, "-H", *(f"{b:02x}" for b in data))


def composer_line(screen: str) -> str:
    """The composer's first line of text (the row under its top border)."""
    lines = screen.split("\n")
    top = max(i for i, line in enumerate(lines) if line.startswith("╭"))
    return lines[top + 1].strip("│ ")


def edit_the_row(tmux: Tmux, prompt: str) -> None:
    """Enter on the cursor's row edits that prompt; Esc stops editing (the composer keeps
    the keys), Tab goes back to the chat."""
    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: EDIT_STRIP in s)
    assert composer_line(screen) == prompt, screen
    tmux.keys("Escape")
    tmux.wait_for(lambda s: EDIT_STRIP not in s and "Enter sends" in s)
    tmux.keys("Tab")
    tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))


def test_home_and_end_move_the_chat_cursor_in_every_terminal(place):
    env = isolated_env(place, RAW_TUI_WELCOME="off")
    work = place / "w"
    (work / "one.jsonl").write_text("".join(json.dumps({"text": t}) + "\n"
                                            for t in (LONG, "answer beta")))
    (work / "raw.json").write_text(json.dumps({
        "default_agent": "main",
        "models": {"one": {"method": "scripted", "script": "one.jsonl"}},
        "agents": {"main": {"model": "one", "tools": {"use": []}}}}))
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=work)
        tmux.wait_for(lambda s: "idle" in status_line(s))
        for prompt, answer in (("first question", "line 29"), ("second question", "answer beta")):
            tmux.type(prompt)
            tmux.keys("Enter")
            tmux.wait_for(lambda s, answer=answer: answer in s and "idle" in status_line(s))
        tmux.keys("Tab")  # the chat, its cursor on the newest row
        screen = tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))
        assert "first question" not in screen  # scrolled off by the long answer
        for terminal, home, end in FORMS:
            send_bytes(tmux, home)
            screen = tmux.wait_for(lambda s: "first question" in s)
            assert "answer beta" not in screen, (terminal, screen)
            edit_the_row(tmux, "first question")
            send_bytes(tmux, end)
            screen = tmux.wait_for(lambda s: "answer beta" in s)
            assert "first question" not in screen, (terminal, screen)
            tmux.keys("Up")  # from the last row (the answer) to the prompt above it
            edit_the_row(tmux, "second question")
        quit_app(tmux)
    finally:
        tmux.kill()

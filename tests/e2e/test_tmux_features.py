"""Issue 11's features in a real terminal (tmux, 80×24, the installed `raw-tui`, its session
in a detached host): the welcome of a first run, retry, chat search, a model switch from the
palette; then `--continue` shows what the model saw, on the model chosen."""

from __future__ import annotations

import json

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, flat, isolated_env, place,  # noqa: F401
                                    quit_app, status_line)


def write_project(work) -> None:
    lines = {"one.jsonl": ["answer alpha", "answer beta", "answer gamma"],
             "two.jsonl": ["answer from model two"]}
    for name, texts in lines.items():
        (work / name).write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    (work / "raw.json").write_text(json.dumps({
        "default_agent": "main",
        "models": {"one": {"method": "scripted", "script": "one.jsonl"},
                   "two": {"method": "scripted", "script": "two.jsonl"}},
        "agents": {"main": {"model": "one", "tools": {"use": []}}}}))


def send(tmux: Tmux, text: str, answer: str) -> str:
    tmux.type(text)
    tmux.keys("Enter")
    tmux.wait_for(answer)
    return tmux.wait_for(lambda s: "idle" in status_line(s))


def test_welcome_retry_search_and_switch_then_continue(place):
    env = isolated_env(place)
    env.pop("RAW_TUI_WELCOME", None)  # a real first run
    work = place / "w"
    write_project(work)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=work)
        screen = tmux.wait_for("Type your first message below.")
        assert "passes a gate" in flat(screen) and "^P commands" in screen
        send(tmux, "first", "answer alpha")
        send(tmux, "second", "answer beta")

        tmux.keys("C-r")
        screen = tmux.wait_for("answer gamma")
        assert "↻ retried" in screen and "answer beta" not in screen, screen
        assert flat(screen).count("second") == 1, screen

        tmux.keys("C-f")
        tmux.wait_for("/ search the chat")  # keys typed before the bar shows go where they were
        tmux.type("alpha")
        tmux.wait_for(lambda s: "1/1" in s)
        tmux.keys("Escape")
        tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))

        tmux.keys("C-p")
        tmux.wait_for("Search for commands")
        tmux.type("Model: two")
        tmux.wait_for("Run the next turns of main on model two")
        tmux.keys("Enter")
        tmux.wait_for(lambda s: "main · two" in status_line(s))
        tmux.wait_for(lambda s: "chat ↑↓" in status_line(s))  # the palette gave focus back
        tmux.keys("Tab")  # back to the composer
        send(tmux, "third", "answer from model two")
        quit_app(tmux)
    finally:
        tmux.kill()

    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI), "--continue"], cwd=work)
        screen = tmux.wait_for("answer from model two")
        assert "answer gamma" in screen and "answer beta" not in screen, screen
        assert "main · two" in status_line(screen), screen
        assert "Welcome to raw-tui" not in screen  # seen once: not again
        quit_app(tmux)
    finally:
        tmux.kill()

"""Every path through the built-in demo makes sense (docs/decisions.md): a write
that was not approved is never ticked done, a question left unanswered neither, the plan's
"Explain" action gets an explanation, and any prompt after the script's end runs it again,
saying so — headless (`run --continue`, JSONL) and in the real UI (tmux, 80×24)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.headless_kit import stored
from tests.e2e.terminal_kit import (RAW_TUI, Tmux, demo_note, flat, isolated_env, needs_tmux,
                                    place, quit_app, raw_tui_cli, status_line, prompt_demo)
from tests.config_kit import raw_tui

__all__ = ["place"]


def demo_run(work: Path, prompt: str, *extra: str) -> list[dict]:
    proc = raw_tui("--cwd", str(work), "run", prompt, "--output", "jsonl", *extra)
    assert proc.returncode in (0, 1), proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def checklist(events: list[dict]) -> dict[str, str]:
    """The todo panel's items (id -> status) as the last panel_state left them."""
    states = [e for e in events if e["type"] == "panel_state" and e["panel"].endswith("#todo")]
    items = states[-1]["document"]["blocks"][0]["items"]
    return {item["id"]: item["status"] for item in items}


def texts(events: list[dict]) -> list[str]:
    return [e["text"] for e in events if e["type"] == "assistant_text" and e["text"]]


def test_headless_the_write_not_approved_is_skipped_and_any_prompt_runs_it_again(tmp_path):
    work = tmp_path / "w"
    work.mkdir()
    first = demo_run(work, "hello")
    assert first[-1]["code"] == "approval_required"  # no approver in a headless run
    rest = demo_run(work, "go on", "--continue")
    assert rest[-1]["status"] == "completed"
    said = " ".join(texts(rest))
    assert "The write did not happen" in said and "No answer, and that is fine" in said
    assert checklist(rest) == {"look": "done", "plan": "done", "write": "skipped",
                               "ask": "skipped"}
    assert not any(t.startswith("Last, a question") for t in texts(rest))

    explained = demo_run(work, "Explain the plan in plan, step by step.", "--continue")
    (answer,) = texts(explained)
    assert "four steps" in answer and "run out" not in answer
    assert [e for e in explained if e["type"] == "tool_call"] == []

    again = demo_run(work, "what else can you do?", "--continue")
    first_text = texts(again)[0]
    assert first_text.startswith("I'm the scripted demo: I know one script, so here it is "
                                 "again from the top.")
    assert "Hi! I'm the raw-tui demo" in first_text
    assert again[-1]["code"] == "approval_required"  # the same script, its write again
    session = first[0]["session_id"]
    assert {e["session_id"] for e in (explained[0], again[0])} == {session}
    assert "run out" not in json.dumps(stored(session))


@needs_tmux
def test_in_the_ui_a_denied_write_is_skipped_and_explain_explains(place):
    env = isolated_env(place)
    note = demo_note(env)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        prompt_demo(tmux, "hello")
        tmux.keys("d")
        tmux.wait_for("Ctrl+S submit")
        tmux.keys("Down", "Enter")
        tmux.wait_for("(•) Green")
        tmux.keys("C-s")  # answered: the question is ticked
        tmux.wait_for(lambda s: "All done. Try a panel action" in s and "idle" in status_line(s))
        assert not note.exists()
        # the sidebar's checklist: the write skipped, the rest done
        tmux.keys("F2")
        screen = tmux.wait_for(lambda s: "Demo plan" in s and "panels ↑↓" in status_line(s))
        assert "⊘ Write a note" in screen and "✔ Ask you a question" in screen, screen
        # the plan's Explain action drafts a prompt; sent, the demo explains the plan
        tmux.keys("Down", "Enter")
        tmux.wait_for("Ask the agent to explain the plan")
        tmux.keys("Enter")
        tmux.wait_for("Explain the plan in plan, step by step.")
        tmux.keys("Enter")
        tmux.wait_for(lambda s: "running" in status_line(s) or "four steps" in flat(s))
        tmux.wait_for(lambda s: "idle" in status_line(s))
        quit_app(tmux)
    finally:
        tmux.kill()
    (row,) = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
    shown = raw_tui_cli(env, place / "w", "sessions", "show", row.split()[0]).stdout
    events = [json.loads(line) for line in shown.splitlines()]
    assert checklist(events)["write"] == "skipped" and checklist(events)["ask"] == "done"
    assert any(t.startswith("The write did not happen") for t in texts(events))
    prompts = [e["text"] for e in events if e["type"] == "user_message"]
    assert prompts[-1] == "Explain the plan in plan, step by step."
    assert "four steps" in texts(events)[-1] and "run out" not in texts(events)[-1]

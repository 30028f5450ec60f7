"""`raw-tui run --resume ID` / `--continue` as a user runs them: the scripted model goes on at
the right line, the panels come back (a todo `merge` builds on the restored list), and
`sessions show` holds both runs."""

from __future__ import annotations

import json

from tests.config_kit import raw_tui, write_config, write_script

LINES = [
    {"text": "Listing.", "tool_calls": [{"name": "todo", "arguments": {"todos": [
        {"id": "a", "content": "Read", "status": "done"},
        {"id": "b", "content": "Write", "status": "pending"}]}}]},
    {"text": "first done"},
    {"tool_calls": [{"name": "todo", "arguments": {"mode": "merge", "todos": [
        {"id": "b", "content": "Write", "status": "done"}]}}]},
    {"text": "second done"},
    {"text": "third done"},
]


def setup(tmp_path):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    write_script(cfg, *LINES)
    write_config(cfg, {"tools": {"use": ["builtin/todo"]}})
    work = tmp_path / "work"
    work.mkdir()
    return cfg, work


def run(cfg, work, prompt, *extra):
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", prompt,
                   "--output", "jsonl", *extra)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def of(events, kind):
    return [e for e in events if e["type"] == kind]


def test_resume_and_continue(tmp_path):
    cfg, work = setup(tmp_path)
    first = run(cfg, work, "make a list")
    session_id = first[0]["session_id"]
    assert [e["text"] for e in of(first, "assistant_text")] == ["Listing.", "first done"]

    second = run(cfg, work, "finish it", "--resume", session_id)
    assert second[0] == {"type": "session_start", "session_id": session_id, "agent": "main"}
    assert [e["text"] for e in of(second, "assistant_text")] == ["", "second done"]
    receipt, = of(second, "panel_receipt")
    assert (receipt["revision"], receipt["summary"]) == (2, "2/2 done")
    assert of(second, "tool_result")[0]["content"][0]["text"] == \
        "panel todo updated (revision 2): 2/2 done"

    third = run(cfg, work, "anything else?", "--continue")
    assert third[0]["session_id"] == session_id
    assert [e["text"] for e in of(third, "assistant_text")] == ["third done"]

    listing = raw_tui("sessions", "list")
    assert len(listing.stdout.splitlines()) == 1
    assert listing.stdout.startswith(session_id)
    shown = raw_tui("sessions", "show", session_id)
    stored = [json.loads(line) for line in shown.stdout.splitlines()]
    assert stored == first + second + third
    assert [e["text"] for e in of(stored, "user_message")] == [
        "make a list", "finish it", "anything else?"]


def test_resume_unknown_id_exits_1(tmp_path):
    cfg, work = setup(tmp_path)
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", "x",
                   "--resume", "s-missing")
    assert proc.returncode == 1
    assert proc.stderr.strip() == "raw-tui: unknown session s-missing"


def test_resume_by_id_from_another_directory_runs_in_the_sessions_own(tmp_path):
    from raw_tui.session.request import SessionRequest

    from raw_tui.session.open import open_session
    from raw_tui.session.store import HistoryStore

    cfg, work = setup(tmp_path)
    session_id = run(cfg, work, "make a list")[0]["session_id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store = HistoryStore()
    try:
        args = SessionRequest(config=str(cfg / "raw.json"), cwd=elsewhere, resume=session_id)
        session, history = open_session(args, interactive=False, store=store)
        assert session.cwd == str(work) and history
    finally:
        store.close()

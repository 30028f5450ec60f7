"""Undo in the UI (raw_tui/ui/conversation/undo.py) over a real session with its
checkpoints: `u` on a turn previews the undo, a file the user changed since is a conflict
left alone until `o` overwrites it, the result is a row in the chat; a retry offers to
restore the files too; the palette's `Undo changes of this turn…`; and the preview's keys
over a fake session."""

from __future__ import annotations

import asyncio

from raw_tui.protocol import bus as ev
from raw_tui.protocol.commands import Reply, Retry, Undo
from raw_tui.session.store import HistoryStore
from raw_tui.ui.app import RawApp
from raw_tui.ui.screens.undo_preview import UndoPreview
from raw_tui.ui.conversation.undo import PALETTE_TITLE, UndoCommands
from raw_tui.ui.widgets.chat_items import UserMessageView
from tests.engine.session_kit import make_session

from .fake_session import connect
from .screenshot_kit import flat, screen_text


def write(*files: tuple[str, str]) -> dict:
    return {"tool_calls": [{"name": "write_file", "id": f"w{files[0][0]}", "arguments": {
        "operations": [{"mode": "overwrite", "path": p, "content": c} for p, c in files]}}]}


async def _real(tmp_path, lines):
    store = HistoryStore(tmp_path / "history.sqlite3")
    h = make_session(tmp_path, lines, store=store, interactive=True,
                     use=["builtin/write_file"])
    await h.session.open()
    return h, store


async def _until(pilot, check, timeout=20.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await pilot.pause(0.05)


async def _send(pilot, app, text):
    await pilot.press(*text, "enter")
    await _until(pilot, lambda: app.main.status_line.status.state == "idle"
                 and any(isinstance(w, UserMessageView) for w in app.query(UserMessageView)))


async def test_u_on_a_turn_previews_then_restores_and_a_conflict_waits_for_o(tmp_path):
    h, store = await _real(tmp_path, [write(("a.txt", "new a\n"), ("b.txt", "new b\n")),
                                      {"text": "wrote both"}])
    work = tmp_path / "work"
    (work / "a.txt").write_text("old a\n")
    (work / "b.txt").write_text("old b\n")
    app = RawApp(connect(h.session))
    try:
        async with app.run_test(size=(100, 36)) as pilot:
            await _send(pilot, app, "write them")
            await _until(pilot, lambda: "wrote both" in screen_text(app))
            assert (work / "a.txt").read_text() == "new a\n"
            (work / "b.txt").write_text("my own b\n")  # the user's edit since
            await pilot.press("tab", "home", "u")  # the chat, its first row: the prompt
            await _until(pilot, lambda: isinstance(app.screen, UndoPreview))
            text = flat(screen_text(app))
            assert "Undo the changes of turn 1 and later?" in text
            assert "restore a.txt" in text and "conflict b.txt" in text
            assert "-new a" in text and "+old a" in text  # the diff
            assert "o overwrite conflicts too" in text
            assert (work / "a.txt").read_text() == "new a\n"  # nothing before the answer
            await pilot.press("enter")
            await _until(pilot, lambda: "↶ undo" in screen_text(app))
            assert (work / "a.txt").read_text() == "old a\n"
            assert (work / "b.txt").read_text() == "my own b\n"  # left alone
            assert "1 restored · 1 conflict left as it is" in flat(screen_text(app))
            # again: only the conflict is left; `o` overwrites it
            await pilot.press("u")
            await _until(pilot, lambda: isinstance(app.screen, UndoPreview))
            assert "conflict b.txt" in flat(screen_text(app))
            await pilot.press("o")
            await _until(pilot, lambda: (work / "b.txt").read_text() == "old b\n")
            await _until(pilot, lambda: "↶ undo: 2 restored" in flat(screen_text(app)))
            stored = [e for e in store.events(h.session.session_id)
                      if isinstance(e, ev.TurnUndo)]
            assert [[f.action for f in e.files] for e in stored] == [
                ["restored", "conflict"], ["restored", "restored"]]
            await pilot.press("u")  # nothing left: a notice, no modal
            await pilot.pause(0.5)
            assert not isinstance(app.screen, UndoPreview)
    finally:
        await h.session.close()
        store.close()


async def test_retry_offers_to_restore_the_files_with_the_conversation(tmp_path):
    h, store = await _real(tmp_path, [write(("a.txt", "first\n")), {"text": "one"},
                                      {"text": "retried without writing"}])
    work = tmp_path / "work"
    (work / "a.txt").write_text("mine\n")
    app = RawApp(connect(h.session))
    try:
        async with app.run_test(size=(100, 36)) as pilot:
            await _send(pilot, app, "go")
            await _until(pilot, lambda: "one" in screen_text(app))
            await pilot.press("ctrl+r")
            await _until(pilot, lambda: isinstance(app.screen, UndoPreview))
            text = flat(screen_text(app))
            assert "Retry turn 1: restore its files too?" in text
            assert "Enter retry and restore files" in text and "k retry, keep files" in text
            await pilot.press("enter")
            await _until(pilot, lambda: "retried without writing" in screen_text(app))
            assert (work / "a.txt").read_text() == "mine\n"  # code and conversation both back
            text = flat(screen_text(app))
            assert "↶ undo: 1 restored" in text and "↻ retried" in text  # the row stays
    finally:
        await h.session.close()
        store.close()


DRY = Reply(report={"turn": 2, "files": [
    {"path": "/tmp/x/a.txt", "action": "restored", "diff": "--- a\n+++ a\n-new\n+old\n"}],
    "unobserved_turns": [2], "notes": ["not undoable: turn 2 ran 2 commands outside the overlay"]})


async def test_the_preview_names_unobserved_turns_and_esc_or_k_change_nothing(session):
    session.replies[Undo] = lambda c: DRY if c.dry_run else Reply(report={"files": []})
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30)) as pilot:
        session.publish(ev.UserMessage(text="first", turn_id="t1"),
                        ev.AssistantText(text="answer", turn_id="t1"))
        await pilot.pause()
        await pilot.press("ctrl+r")
        await _until(pilot, lambda: isinstance(app.screen, UndoPreview))
        text = flat(screen_text(app))
        assert "not undoable: turn 2 ran 2 commands outside the overlay" in text
        assert "o overwrite" not in text  # no conflict: no `o`
        await pilot.press("escape")  # neither the files nor the retry
        await pilot.pause()
        assert session.sent(Retry) == []
        assert session.sent(Undo) == [Undo(turn_id="t1", dry_run=True)]
        await pilot.press("ctrl+r")
        await _until(pilot, lambda: isinstance(app.screen, UndoPreview))
        await pilot.press("k")  # the retry only
        await _until(pilot, lambda: session.sent(Retry) == [Retry()])
        assert [c for c in session.sent(Undo) if not c.dry_run] == []


async def test_the_palette_offers_the_undo_of_the_cursors_turn(session):
    session.replies[Undo] = lambda c: DRY if c.dry_run else Reply(report={"files": []})
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30)) as pilot:
        session.publish(ev.UserMessage(text="first", turn_id="t1"),
                        ev.AssistantText(text="answer one", turn_id="t1"),
                        ev.UserMessage(text="second", turn_id="t2"),
                        ev.AssistantText(text="answer two", turn_id="t2"))
        await pilot.pause()
        await pilot.press("tab", "home", "down")  # the answer of turn 1
        provider = UndoCommands(app.screen)
        hits = [h async for h in provider.search("undo")]
        assert [h.text for h in hits] == [PALETTE_TITLE] and "“first”" in hits[0].help
        await pilot.press("ctrl+p", *"undo changes")  # the real palette lists it
        await _until(pilot, lambda: PALETTE_TITLE in screen_text(app))
        await pilot.press("enter")
        await _until(pilot, lambda: isinstance(app.screen, UndoPreview))
        await pilot.press("enter")
        await _until(pilot, lambda: [c for c in session.sent(Undo) if not c.dry_run]
                     == [Undo(turn_id="t1")])


async def test_an_edit_resent_restores_the_files_of_the_turns_it_replaces(tmp_path):
    h, store = await _real(tmp_path, [write(("a.txt", "first\n")), {"text": "one"},
                                      {"text": "edited, nothing written"}])
    work = tmp_path / "work"
    app = RawApp(connect(h.session))
    try:
        async with app.run_test(size=(100, 36)) as pilot:
            await _send(pilot, app, "go")
            await _until(pilot, lambda: "one" in screen_text(app))
            assert (work / "a.txt").exists()
            await pilot.press("tab", "home", "e", "ctrl+u", *"go again", "enter")
            await _until(pilot, lambda: isinstance(app.screen, UndoPreview))
            text = flat(screen_text(app))
            assert "Resend turn 1: restore its files too?" in text and "remove a.txt" in text
            await pilot.press("enter")
            await _until(pilot, lambda: "edited, nothing written" in screen_text(app))
            assert not (work / "a.txt").exists()
            assert "✎ prompt edited" in screen_text(app)
    finally:
        await h.session.close()
        store.close()

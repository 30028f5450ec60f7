"""The approval modal: effects apart from arguments, symlink warning, diff preview, queue."""

from __future__ import annotations

import os

import msgspec

from raw_tui.protocol import bus as ev
from raw_tui.protocol.commands import ApprovalAnswer
from raw_tui.ui.app import RawApp
from raw_tui.ui.screens.approval import ApprovalScreen

from . import events as samples
from .fake_session import connect
from .screenshot_kit import flat, screen_text


def diff_lines(text: str) -> list[str]:
    """The `---`/`+++` header lines of the modal's diff, in order."""
    return [line.strip(" ▏█▌│") for line in text.splitlines()
            if line.strip(" ▏█▌│").startswith(("--- ", "+++ "))]


async def test_modal_shows_effects_diff_and_arguments_and_a_approves(session, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("hello\nold line\n")
    args = {"operations": [{"mode": "replace_text", "path": "notes.txt",
                            "old_text": "old line", "new_text": "new line"}]}
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(*samples.write_call(str(target), arguments=args, rule=3, cwd=str(tmp_path)))
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        text = screen_text(app)
        assert "Approve write_file?" in text
        assert "builtin/write_file · asked by tools.rules[3]" in text
        assert text.index("Intended effects") < text.index("Preview (not written)") < text.index(
            "Arguments")
        assert "write             notes.txt" in text  # under the working directory
        assert "--- notes.txt" in text and "+++ notes.txt" in text
        assert "p full paths" in text
        await pilot.press("p")  # the absolute paths a key away
        await pilot.pause()
        text = screen_text(app)
        assert f"write             {target}" in text and f"--- {target}" in text
        assert "p relative paths" in text
        assert "-old line" in text and "+new line" in text
        assert '"old_text": "old line"' in text
        assert target.read_text() == "hello\nold line\n"  # never written
        await pilot.press("a")
        await pilot.pause()
        assert session.sent(ApprovalAnswer) == [ApprovalAnswer(call_id="c1", allow=True)]
        assert not isinstance(app.screen, ApprovalScreen)


async def test_modal_shows_the_line_the_handler_replaces(session, tmp_path):
    """The issue's case: U+2028 inside line 2. The modal drew `-harmless` (its own
    str.splitlines) while write_file rewrote `rm -rf important`; now it draws the engine's
    preview, the code the handler runs, and shows the U+2028 as an escape."""
    target = tmp_path / "f.txt"
    target.write_text("one\nkeep\u2028harmless\nrm -rf important\nlast\n")
    args = {"operations": [{"mode": "replace_lines", "path": "f.txt", "start_line": 3,
                            "end_line": 3, "content": "echo safe\n"}]}
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(*samples.write_call(str(target), arguments=args, cwd=str(tmp_path)))
        await pilot.pause()
        text = screen_text(app)
        assert "-rm -rf important" in text and "+echo safe" in text
        assert "-harmless" not in text
        assert " keep\\u2028harmless" in text


async def test_modal_draws_the_preview_notes_and_reads_no_file(session, tmp_path):
    """What the event says is what is drawn: a note from the engine, even when the file on
    disk would say otherwise (the modal never reads it)."""
    (tmp_path / "a.txt").write_text("on disk\n")
    call, ask = samples.write_call(str(tmp_path / "a.txt"))
    ask = msgspec.structs.replace(ask, preview=ev.ApprovalPreview(files=[ev.FilePreview(
        path=str(tmp_path / "a.txt"), operation="write",
        note="no preview: the file is a FIFO")]))
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(call, ask)
        await pilot.pause()
        text = flat(screen_text(app))
        assert "! a.txt: no preview: the file is a FIFO" in text
        assert "on disk" not in text and "+hello" not in text


async def test_symlinked_path_is_warned_about(session, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    path = str(tmp_path / "link" / "f.txt")
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(*samples.write_call(path))
        await pilot.pause()
        text = flat(screen_text(app))
        assert f"⚠ passes through a symbolic link: {tmp_path / 'link'}" in text


async def test_patch_form_previews_the_patch_as_a_diff(session, tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    patch = ("*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n"
             "*** Add File: b.txt\n+fresh\n*** End Patch")
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(*samples.write_call(str(tmp_path / "a.txt"), arguments={"patch": patch},
                                      cwd=str(tmp_path)))
        await pilot.pause()
        text = screen_text(app)
        assert "-two" in text and "+TWO" in text and "+fresh" in text
        assert diff_lines(text)[-2:] == ["--- /dev/null", "+++ b.txt"]  # a new file


async def test_several_approvals_queue_and_d_and_escape_deny(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30)) as pilot:
        session.publish(*samples.write_call("/work/demo/one.txt", call_id="c1"))
        session.publish(*samples.write_call("/work/demo/two.txt", call_id="c2"))
        session.publish(*samples.write_call("/work/demo/three.txt", call_id="c3"))
        await pilot.pause()
        assert "/work/demo/one.txt" in screen_text(app)
        assert "2 more waiting" in screen_text(app)
        assert "3 approvals" in screen_text(app)
        await pilot.press("d")
        await pilot.pause()
        assert "/work/demo/two.txt" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert "/work/demo/three.txt" in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert session.sent(ApprovalAnswer) == [
            ApprovalAnswer(call_id="c1", allow=False), ApprovalAnswer(call_id="c2", allow=False),
            ApprovalAnswer(call_id="c3", allow=True)]
        assert not isinstance(app.screen, ApprovalScreen)


async def test_a_decision_made_elsewhere_closes_the_modal_without_answering(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(99, 30)) as pilot:
        session.publish(*samples.write_call(call_id="c1"))
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        session.publish(ev.ApprovalDecision(call_id="c1", allow=False))
        await pilot.pause()
        assert not isinstance(app.screen, ApprovalScreen)
        assert session.sent(ApprovalAnswer) == []
        assert "asked by rule #1 → denied" in flat(screen_text(app))


def _drawn(widget) -> bool:
    """The widget is placed on its screen (Widget.region is empty when it is not)."""
    return widget.region.area > 0


async def test_only_what_scrolls_shows_a_scrollbar_in_and_around_the_modal(session):
    """Issue 11: at 80×24 the chat's scrollbar thumb floated beside the dialog, dimmed. Under
    the modal no scrollbar shows; in it only the body, and only when it scrolls (the keys
    line then says ↑↓ scroll)."""
    from raw_tui.ui.widgets.chat_view import ChatView

    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        for i in range(8):
            session.publish(ev.UserMessage(text=f"message {i}"),
                            ev.AssistantText(text="answer " * 20))
        await pilot.pause()
        chat = app.query_one(ChatView)
        assert chat.max_scroll_y > 0 and _drawn(chat.vertical_scrollbar)
        args = {"command": "ls"}
        session.publish(ev.ToolCall(call_id="c1", identity="builtin/bash", name="bash",
                                    arguments=args),
                        ev.ApprovalRequest(call_id="c1", identity="builtin/bash", name="bash",
                                           arguments=args, rule=0))
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        body = app.screen.query_one("#approval-body")
        assert body.max_scroll_y == 0 and not _drawn(body.vertical_scrollbar)
        assert not _drawn(chat.vertical_scrollbar)  # no thumb beside the dialog
        assert "↑↓ scroll" not in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert _drawn(chat.vertical_scrollbar)  # back when the modal closes

        session.publish(*samples.write_call("/tmp/notes.txt", call_id="c2",
                                      arguments={"operations": [
                                          {"mode": "overwrite", "path": "/tmp/notes.txt",
                                           "content": "line\n" * 30}]}))
        await pilot.pause()
        await pilot.pause()
        body = app.screen.query_one("#approval-body")
        assert body.max_scroll_y > 0 and _drawn(body.vertical_scrollbar)
        assert body.vertical_scrollbar.region.width == 1
        assert "↑↓ scroll" in screen_text(app)


async def test_a_new_file_is_diffed_from_dev_null_and_an_identical_overwrite_says_no_change(
        session, tmp_path):
    (tmp_path / "same.txt").write_text("hello\nworld\n")
    args = {"operations": [
        {"mode": "overwrite", "path": "same.txt", "content": "hello\nworld\n"},
        {"mode": "overwrite", "path": "new.txt", "content": "fresh\n"}]}
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(*samples.write_call(str(tmp_path / "same.txt"), arguments=args,
                                            cwd=str(tmp_path)))
        await pilot.pause()
        text = screen_text(app)
        assert diff_lines(text) == ["--- /dev/null", "+++ new.txt"]  # none for same.txt
        assert "@@ -0,0 +1 @@" in text and "+fresh" in text
        assert "! same.txt: no change (the file already holds this content)" in text


async def test_a_path_outside_the_working_directory_stays_absolute_and_p_does_nothing(
        session, tmp_path):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(*samples.write_call("/elsewhere/x.txt", cwd=str(tmp_path)))
        await pilot.pause()
        text = screen_text(app)
        assert "write             /elsewhere/x.txt" in text and "full paths" not in text
        await pilot.press("p")
        await pilot.pause()
        assert screen_text(app) == text

"""Main screen and chat: composer, streaming, tool calls, receipts, pruning, replay."""

from __future__ import annotations

from raw_tui.protocol import bus as ev
from raw_tui.protocol.commands import Prompt, Reply
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.assistant import AssistantMessageView
from raw_tui.ui.widgets.chat_items import HookRow
from raw_tui.ui.widgets.chat_view import HiddenRow
from raw_tui.ui.widgets.chat_view import ChatView
from raw_tui.ui.widgets.composer import Composer

from . import events as samples
from .fake_session import connect
from .screenshot_kit import flat, screen_text


async def test_enter_sends_prompt_and_history_recalls_it(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"hello", "enter")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="hello")]
        composer = app.query_one(Composer)
        assert composer.text == ""
        await pilot.press("up")
        assert composer.text == "hello"
        await pilot.press("down")
        assert composer.text == ""


async def test_ctrl_j_shift_enter_and_alt_enter_add_a_newline_without_sending(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        # the placeholder names the newline key that works in every terminal (tmux, SSH)
        assert "Ctrl+J newline" in screen_text(app)
        await pilot.press("a", "ctrl+j", "b")
        await pilot.press("alt+enter", "c", "shift+enter", "d")
        assert app.query_one(Composer).text == "a\nb\nc\nd"
        assert session.commands == []
        await pilot.press("enter")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="a\nb\nc\nd")]


async def test_refused_prompt_goes_back_into_the_composer(session):
    session.replies[Prompt] = Reply(ok=False, code="closing", message="the session is closing")
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"again", "enter")
        await pilot.pause()
        assert app.query_one(Composer).text == "again"


async def test_a_prompt_refused_as_busy_is_queued_not_put_back(session):
    session.replies[Prompt] = Reply(ok=False, code="busy", message="a turn is running")
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"later", "enter")
        await pilot.pause()
        assert app.query_one(Composer).text == ""
        assert app.main.prompt_queue.prompts == ["later"]
        assert "⏸ queued later" in screen_text(app)


async def test_assistant_text_streams_into_one_markdown_widget(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(ev.UserMessage(text="hi"))
        for word in ("Hello ", "**wide** ", "world"):
            session.publish(ev.AssistantDelta(text=word))
        await pilot.pause()
        await pilot.pause()
        views = app.query(AssistantMessageView)
        assert len(views) == 1
        assert "Hello wide world" in flat(screen_text(app))
        session.publish(ev.AssistantText(text="Hello **wide** world!"))
        await pilot.pause()
        assert len(app.query(AssistantMessageView)) == 1
        assert "Hello wide world!" in flat(screen_text(app))
        assert app.main.conversation.transcript.streaming is None


async def test_a_sent_prompt_is_drawn_before_an_instant_reply_is(session):
    """Enter to screen within a frame: the prompt's row is laid out and drawn as soon as its
    event is handled, not in the frame after the reply's drawing queued behind it (the
    screen draws only when its queue is empty, at most 60 times a second)."""
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        frames: list[str] = []
        display = app._display  # every frame goes through it (headless: written nowhere)

        def record(screen, update) -> None:
            display(screen, update)
            frames.append(flat(screen_text(app)))

        app._display = record
        session.publish(ev.UserMessage(text="first prompt"),
                        ev.AssistantDelta(text="instant reply"))
        for _ in range(20):
            await pilot.pause()
            if any("instant reply" in frame for frame in frames):
                break
        assert any("instant reply" in frame for frame in frames)
        first = next(frame for frame in frames if "› first prompt" in frame)
        assert "instant reply" not in first


async def test_tool_call_block_shows_decision_args_effects_and_collapsed_result(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30)) as pilot:
        call, _ = samples.write_call()
        session.publish(call, ev.ToolResultEvent(
            call_id="c1", isError=False,
            content=[{"type": "text", "text": "\n".join(f"line {i}" for i in range(10))}]))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "⚙ write_file builtin/write_file allowed" in text
        assert "effect write /work/demo/notes.txt" in text
        assert "line 0" in text and "line 9" not in text
        assert "7 more lines (Enter expands)" in text
        chat = app.query_one(ChatView)
        chat.focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert "line 9" in flat(screen_text(app))


async def test_denied_tool_call_names_its_code(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 30)) as pilot:
        session.publish(
            ev.ToolCall(call_id="c9", identity="builtin/bash", name="bash",
                        arguments={"commands": [{"command": "rm -rf x"}]}),
            ev.HookEvent(id="guard", event="PreToolUse", outcome="denied", duration_ms=3,
                         message="rm is not allowed"),
            ev.ToolResultEvent(call_id="c9", isError=True, code="hook_denied",
                               content=[{"type": "text", "text": "hook guard denied"}]))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "bash builtin/bash denied · hook_denied" in text
        assert "Hook guard PreToolUse: denied · rm is not allowed" in text
        assert len(app.query(HookRow)) == 1


async def test_panel_receipts_and_rejections(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(
            samples.panel([samples.BLOCKS["checklist"]], revision=5, progress={"done": 3, "total": 7}),
            ev.PanelReceipt(panel="builtin/todo#todo", owner="builtin/todo", title="Todo",
                            revision=5, summary="writing tests", op="patch", source="model"),
            ev.PanelReceipt(panel="builtin/todo#todo", owner="builtin/todo", title="Todo",
                            revision=5, summary="", op="patch", source="model",
                            error=ev.ReceiptError(code="panel_invalid",
                                                message="/blocks/0/oops: unknown field")))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "▸ Todo r5 · 3/7 · writing tests" in text
        assert "▸ Todo update rejected: panel_invalid /blocks/0/oops: unknown field" in text


async def test_run_end_and_notices(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(100, 24)) as pilot:
        session.publish(ev.RunEnd(status="cancelled"),
                        ev.Notice(level="warning", message="context is nearly full"),
                        ev.HooksReload(ok=False, message="hooks/guard/hook.json: bad key"))
        await pilot.pause()
        text = flat(screen_text(app))
        assert "turn cancelled" in text
        assert "context is nearly full" in text
        assert "hooks reload rejected: hooks/guard/hook.json: bad key" in text


async def test_old_rows_are_pruned_and_kept_for_scroll_back(session):
    app = RawApp(connect(session, ui={"max_chat_items": 10}))
    async with app.run_test(size=(80, 24)) as pilot:
        for i in range(40):
            session.publish(ev.UserMessage(text=f"message {i}"))
        await pilot.pause()
        chat = app.query_one(ChatView)
        rows = chat.rows()
        assert len(rows) <= 10 + 20
        assert chat.archive and chat.archive[0] == "message 0"
        hidden = app.query_one(HiddenRow)
        assert hidden.display and hidden.count == len(chat.archive)
        assert len(rows) + len(chat.archive) == 40
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "message 0" in screen_text(app)
        await pilot.press("escape")


async def test_replay_draws_history_before_live_events_without_opening_modals(session):
    call, ask = samples.write_call()
    replay = [ev.UserMessage(text="earlier question"), ev.AssistantDelta(text="ignored"),
              ev.AssistantText(text="earlier answer"), call, ask,
              ev.ApprovalDecision(call_id="c1", allow=True),
              samples.panel([samples.BLOCKS["steps"]], title="Restored")]
    app = RawApp(connect(session, replay=replay))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(ev.UserMessage(text="live question"))
        await pilot.pause()
        text = flat(screen_text(app))
        assert text.index("earlier question") < text.index("earlier answer") < text.index(
            "live question")
        assert "ignored" not in text
        assert "asked by rule #1 → approved" in text
        assert "Restored" in text
        assert app.main.conversation.approvals.pending == [] and app.screen is app.screen_stack[0]


async def test_status_line_shows_turn_state_and_steps(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 24)) as pilot:
        session.publish(ev.TurnState(state="running", step=2, max_steps=25))
        await pilot.pause()
        last = screen_text(app).split("\n")[-1]
        assert "running step 2/25" in last and "demo · scripted" in last
        assert "^q quit" in last


async def test_replay_shows_how_a_form_ended_without_reopening_it(session):
    replay = [samples.panel([samples.FORM], pid="ask", placement="chat", title="A question"),
              ev.InteractionRequest(request_id="r1", panel="builtin/todo#ask"),
              ev.InteractionSettled(request_id="r1", status="answered")]
    app = RawApp(connect(session, replay=replay))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "(answered)" in screen_text(app)
        assert app.main.conversation.forms.questions == {} and "question" not in screen_text(app).split("\n")[-1]


async def test_a_long_replay_mounts_only_the_last_rows(session):
    call, ask = samples.write_call()
    replay = [ev.UserMessage(text=f"message {i}") for i in range(300)]
    replay += [call, ask, ev.ApprovalDecision(call_id="c1", allow=True),
               ev.ToolResultEvent(call_id="c1", isError=False,
                                  content=[{"type": "text", "text": "wrote it"}])]
    app = RawApp(connect(session, ui={"max_chat_items": 50}, replay=replay))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        chat = app.query_one(ChatView)
        rows = chat.rows()
        assert len(rows) == 50  # not 301 mounted, then pruned
        assert len(chat.archive) == 251 and chat.archive[0] == "message 0"
        views = [r for r in rows if r.__class__.__name__ == "ToolCallView"]
        assert len(views) == 1  # one view for the call's four events
        text = flat(screen_text(app))
        assert "asked by rule #1" in text and "→ approved" in text and "✔ wrote it" in text
        chat.scroll_home(animate=False)
        await pilot.pause()
        assert "251 earlier items hidden" in flat(screen_text(app))


async def test_status_line_drops_key_hints_before_state_at_60_columns(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(60, 20)) as pilot:
        session.publish(ev.TurnState(state="running", step=4, max_steps=25),
                        *samples.write_call("/work/demo/one.txt"))
        await pilot.pause()
        last = screen_text(app).split("\n")[-1]
        assert "running step 4/25 · 1 approval" in last
        assert "^p cmds" not in last


async def test_status_line_shows_context_use_and_a_truncated_reply(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(ev.TurnState(state="running", step=1, max_steps=25),
                        ev.TokenUsage(input_tokens=1234, output_tokens=56,
                                      context_window_tokens=8000))
        await pilot.pause()
        assert "context 15%" in screen_text(app).split("\n")[-1]
        session.publish(ev.Notice(level="warning", message="the reply was cut"),
                        ev.RunEnd(status="completed", code="truncated"),
                        ev.TurnState(state="idle", step=1, max_steps=25))
        await pilot.pause()
        assert "reply truncated" in screen_text(app).split("\n")[-1]
        session.publish(ev.TurnState(state="running", step=1, max_steps=25))
        await pilot.pause()
        assert "reply truncated" not in screen_text(app).split("\n")[-1]


async def test_clear_empties_the_chat_and_compact_does_not(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(ev.UserMessage(text="first question"),
                        ev.AssistantText(text="first answer"),
                        ev.Compaction(summary="summary of it", kept_turns=[]))
        await pilot.pause()
        assert "first answer" in screen_text(app)
        session.publish(ev.Compaction(summary="", kept_turns=[]),
                        ev.Notice(level="info", message="conversation cleared"))
        await pilot.pause()
        text = screen_text(app)
        assert "first question" not in text and "first answer" not in text
        assert "conversation cleared" in text


async def test_home_and_end_move_the_chat_cursor_to_the_first_and_last_row(session):
    """Home/End in the chat move its cursor (and scroll with it), so the next Up/Down, Enter
    or `c` acts on the row in view; the scroll container's own Home/End only scrolled, and
    the next Down jumped back to the row the cursor had stayed on."""
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(*(ev.UserMessage(text=f"message {i}") for i in range(30)))
        await pilot.pause()
        await pilot.press("tab")  # the chat, the cursor on the newest row
        chat = app.query_one(ChatView)
        rows = chat.rows()
        assert chat.has_focus and chat.cursor.widget is rows[-1] and chat.max_scroll_y > 0
        await pilot.press("home")
        await pilot.pause()
        assert chat.cursor.widget is rows[0] and chat.scroll_y == 0
        await pilot.press("down", "c")
        assert app.clipboard == "message 1"
        await pilot.press("end")
        await pilot.pause()
        assert chat.cursor.widget is rows[-1] and chat.scroll_y == chat.max_scroll_y
        await pilot.press("up", "c")
        assert app.clipboard == "message 28"

"""Keyboard only: focus cycle, panel actions, palette, help, keymap, cancel, quit, copy,
small terminals."""

from __future__ import annotations

import base64

from textual import events
from textual.command import CommandPalette

from raw_tui.protocol import bus as ev
from raw_tui.protocol.commands import Cancel, Clear, Compact, PanelAction, Prompt, Quit, Reply
from raw_tui.ui.app import RawApp, osc52
from raw_tui.ui.screens.actions_menu import ActionsMenu
from raw_tui.ui.widgets.chat_view import ChatView
from raw_tui.ui.widgets.composer import Composer
from raw_tui.ui.widgets.sidebar import Sidebar

from . import events as samples
from .fake_session import connect
from .screenshot_kit import screen_text


async def test_tab_cycles_composer_chat_sidebar(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["steps"]]))
        await pilot.pause()
        assert isinstance(app.focused, Composer)
        await pilot.press("tab")
        assert isinstance(app.focused, ChatView)
        await pilot.press("tab")
        assert isinstance(app.focused, Sidebar)
        await pilot.press("tab")
        assert isinstance(app.focused, Composer)
        await pilot.press("shift+tab")
        assert isinstance(app.focused, Sidebar)


async def _sidebar_with_actions(session, pilot):
    session.publish(samples.panel([samples.BLOCKS["checklist"]], actions=samples.ACTIONS))
    await pilot.pause()
    await pilot.press("tab", "tab")


async def test_enter_on_a_panel_opens_its_actions_and_a_prompt_action_fills_the_composer(session):
    session.replies[PanelAction] = Reply(draft="Explain todo")
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        await _sidebar_with_actions(session, pilot)
        assert app.query_one(Sidebar).cursor.block is None  # on the panel header
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ActionsMenu)
        text = screen_text(app)
        assert "Explain this plan" in text and "Redo item" not in text and "Submit" not in text
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert session.sent(PanelAction) == [PanelAction(panel="builtin/todo#todo",
                                                         action="explain")]
        composer = app.query_one(Composer)
        assert composer.text == "Explain todo" and app.focused is composer
        assert session.sent(Prompt) == []


async def test_an_item_action_names_block_and_item_and_send_sends(session):
    session.replies[PanelAction] = Reply(draft="redo b", send=True)
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        await _sidebar_with_actions(session, pilot)
        await pilot.press("right", "down", "down")  # into the panel: block, item a, item b
        cursor = app.query_one(Sidebar).cursor
        assert (cursor.block, cursor.item) == ("plan", "b")
        await pilot.press("enter")
        await pilot.pause()
        text = screen_text(app)  # the item's own actions first, then the panel's
        assert 0 <= text.index("Redo item") < text.index("Explain this plan")
        assert "Submit" not in text
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert session.sent(PanelAction) == [PanelAction(panel="builtin/todo#todo",
                                                         action="redo", block="plan", item="b")]
        assert session.sent(Prompt) == [Prompt(text="redo b")]


async def test_a_block_offers_its_panels_actions_which_name_no_block(session):
    """Enter on a block (or an item) of a panel with only panel actions offers them too."""
    session.replies[PanelAction] = Reply(draft="Explain todo")
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["steps"]], actions=[samples.ACTIONS[0]]))
        await pilot.pause()
        await pilot.press("tab", "tab", "right")
        assert app.query_one(Sidebar).cursor.block == "steps"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ActionsMenu)
        assert "Explain this plan  ·  prompt · panel" in screen_text(app)
        await pilot.press("escape", "down", "enter")  # item s1: the panel's action again
        await pilot.pause()
        assert isinstance(app.screen, ActionsMenu)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert session.sent(PanelAction) == [PanelAction(panel="builtin/todo#todo",
                                                         action="explain")]
        assert app.query_one(Composer).text == "Explain todo"


async def test_escape_closes_the_actions_menu_without_running_anything(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        await _sidebar_with_actions(session, pilot)
        await pilot.press("enter", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, ActionsMenu)
        assert session.sent(PanelAction) == []


async def test_palette_lists_commands_and_panel_actions(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["steps"]], actions=samples.ACTIONS))
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"/compact", "/clear", "Quit", "Todo: Explain this plan"} <= set(titles)
        assert "Todo: Submit" not in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"/compact")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert session.sent(Compact) == [Compact()]
        assert session.sent(Clear) == []


async def test_f1_shows_the_keys_of_the_focused_widget(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert app.screen.query("HelpPanel")
        assert "Enter sends" in screen_text(app)
        await pilot.press("f1")
        await pilot.pause()
        assert not app.screen.query("HelpPanel")


async def test_keymap_remaps_bindings_by_id(session):
    app = RawApp(connect(session, ui={"keymap": {"raw.toggle_sidebar": "f5",
                                                "composer.send": "ctrl+s"}}))
    async with app.run_test(size=(80, 24)) as pilot:
        sidebar = app.query_one(Sidebar)
        await pilot.press("f2")
        assert not sidebar.display
        await pilot.press("f5")
        assert sidebar.display
        await pilot.press("f5")
        await pilot.press(*"hi", "ctrl+s")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="hi")]


async def test_escape_cancels_only_a_running_turn(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await pilot.pause()
        assert session.sent(Cancel) == []
        session.publish(ev.TurnState(state="running", step=1, max_steps=25))
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert session.sent(Cancel) == [Cancel()]


async def test_ctrl_q_sends_quit_then_exits(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert session.sent(Quit) == [Quit()]
    assert app.return_code == 0


async def test_tiny_terminal_still_shows_composer_and_quit(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(40, 12)) as pilot:
        session.publish(ev.UserMessage(text="hello"))
        await pilot.pause()
        text = screen_text(app)
        assert "Message" in text and "^q quit" in text.split("\n")[-1]
        composer = app.query_one(Composer)
        assert composer.region.height >= 3 and composer.region.bottom <= 11


async def test_copy_puts_the_focused_message_on_the_clipboard(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(ev.UserMessage(text="copy me"), ev.AssistantText(text="and **me**"))
        await pilot.pause()
        await pilot.press("tab")  # chat, cursor on the newest row
        await pilot.press("c")
        assert app.clipboard == "and **me**"
        await pilot.press("up", "c")
        assert app.clipboard == "copy me"


async def test_copy_a_sidebar_item(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["steps"]]))
        await pilot.pause()
        await pilot.press("tab", "tab", "right", "down", "c")
        assert app.clipboard == "1. ✔ Configure"


async def test_c_in_tmux_writes_a_plain_osc52_without_passthrough(session, monkeypatch):
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        written: list[str] = []
        monkeypatch.setattr(app._driver, "write", written.append)
        app.copy_to_clipboard("hé")
        plain = "\x1b]52;c;" + base64.b64encode("hé".encode()).decode() + "\a"
        assert written == [plain] == [osc52("hé")]
        await pilot.pause()


async def test_no_color_is_honoured(session, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = RawApp(connect(session))
    assert app.no_color


async def test_no_cursor_blink_by_default_and_a_setting_turns_it_on(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(samples.panel([samples.FORM], pid="ask"))
        await pilot.pause()
        blinking = [w for w in app.query("Input, TextArea") if w.cursor_blink]
        assert blinking == [] and app.animation_level == "none"
    app = RawApp(connect(session, ui={"cursor_blink": True, "animations": True}))
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.query_one(Composer).cursor_blink


async def test_a_burst_of_keys_then_enter_sends_all_of_it(session):
    """`tmux send-keys "hello demo" Enter` arrives in one read: every key is queued before
    any is handled. Enter must send the whole text, not an empty composer."""
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for ch in "hello demo":
            app.post_message(events.Key(ch, ch))
        app.post_message(events.Key("enter", "\r"))
        await pilot.pause()
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="hello demo")]
        assert app.query_one(Composer).text == ""


async def test_alt_enter_adds_a_newline_and_history_walks_back(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"one", "alt+enter", *"two", "enter")
        await pilot.pause()
        assert session.sent(Prompt) == [Prompt(text="one\ntwo")]
        composer = app.query_one(Composer)
        await pilot.press("up")
        assert composer.text == "one\ntwo"
        await pilot.press("down", "down")
        assert composer.text == ""


async def test_quit_while_an_approval_waits_draws_nothing_after_exit(session):
    """Quit cancels the turn: its last events (a cancelled result, the run's end) arrive
    while the app exits and must not be drawn into an unmounted chat."""
    call, ask = samples.write_call()

    def quit_reply(command):
        session.publish(ev.ToolResultEvent(call_id="c1", isError=True, code="cancelled",
                                           content=[{"type": "text", "text": "cancelled"}]),
                        ev.RunEnd(status="cancelled", code="cancelled"))
        return Reply()

    session.replies[Quit] = quit_reply
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(call, ask)
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0 and app._exception is None


async def test_the_status_line_says_where_the_keyboard_is(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["steps"]]))
        await pilot.pause()
        last = lambda: screen_text(app).split("\n")[-1]  # noqa: E731
        assert "chat" not in last() and "^q quit" in last()
        await pilot.press("tab")
        assert "chat ↑↓ ⏎ c · ^q quit" in last()
        await pilot.press("tab")
        assert "panels ↑↓ ⏎ c · ^q quit" in last()
        await pilot.press("tab")
        assert "chat" not in last() and "panels" not in last()


class _Row:
    def __init__(self, sid, title):
        self.id, self.title, self.updated_at, self.events = sid, title, 1.7e9, 12


class _Store:
    def __init__(self, rows):
        self.rows = rows
        self.asked: list[str] = []

    def list(self, cwd):
        self.asked.append(cwd)
        return self.rows


async def test_palette_lists_saved_sessions_and_resuming_closes_this_one(session):
    from raw_tui.ui.app import Resume

    from raw_tui.protocol.commands import SavedSession

    # the session itself lists the others (tests/engine: test_saved_sessions_*)
    session.saved = [SavedSession(id="s-old", title="fix the parser", updated_at=1.7e9,
                                  events=12, cwd=session.info.cwd),
                     SavedSession(id="s-far", title="tune the lexer", updated_at=1.6e9,
                                  events=3, cwd="/srv/lexer")]
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 30)) as pilot:
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "Resume: fix the parser" in commands  # this directory: no mark
        assert "Resume: tune the lexer [lexer]" in commands  # another one: marked
        assert "in /srv/lexer" in commands["Resume: tune the lexer [lexer]"]
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"fix the parser")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
    assert session.sent(Quit) == [Quit()]
    assert app.return_value == Resume("s-old")


async def test_the_status_line_shows_hook_reloads(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(120, 24)) as pilot:
        last = lambda: screen_text(app).split("\n")[-1]  # noqa: E731
        session.publish(ev.HooksReload(ok=True, message="hooks reloaded: guard, logger"))
        await pilot.pause()
        assert "hooks reloaded: guard, logger" in last()
        session.publish(ev.HooksReload(ok=False, message="hooks/guard/hook.json: bad key"))
        await pilot.pause()
        assert "hooks reload rejected: hooks/guard/hook.json: bad key" in last()


async def test_sidebar_follows_the_new_window_size_on_resize(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["checklist"]], title="Demo plan"))
        await pilot.pause()
        sidebar = app.query_one(Sidebar)
        assert not sidebar.display
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert sidebar.display
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not sidebar.display


async def test_at_80x24_tab_reaches_the_panels_and_a_strip_says_a_hidden_panel_changed(session):
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(ev.UserMessage(text="make a plan"),
                        samples.panel([samples.BLOCKS["checklist"]], title="Demo plan"))
        await pilot.pause()
        chat, sidebar = app.query_one(ChatView), app.query_one(Sidebar)
        assert not sidebar.display
        assert "Demo plan updated · F2 or Tab to the panels" in screen_text(app)
        await pilot.press("tab")
        assert isinstance(app.focused, ChatView)
        await pilot.press("tab")  # the panels: the whole width, the chat out of the way
        await pilot.pause()
        assert app.focused is sidebar and sidebar.display and not chat.display
        text = screen_text(app)
        assert "Demo plan" in text and "make a plan" not in text
        assert "F2 or Tab to the panels" not in text
        await pilot.press("tab")  # back to the composer: the chat again
        await pilot.pause()
        assert isinstance(app.focused, Composer) and chat.display and not sidebar.display
        assert "make a plan" in screen_text(app)
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is sidebar and not chat.display


async def test_one_down_reaches_the_next_panel_in_the_sidebar(session):
    """Issue 11: the panel list. F2 puts the cursor on the first panel; Down goes to the next
    panel's header (not through the first one's blocks and items); Right goes into a panel,
    Left back to its header."""
    app = RawApp(connect(session))
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(samples.panel([samples.BLOCKS["checklist"]], title="Todo"),
                        samples.panel([samples.BLOCKS["mermaid"]], pid="plan", title="Plan",
                                actions=[samples.ACTIONS[0]]))
        await pilot.pause()
        await pilot.press("f2", "down")
        sidebar = app.query_one(Sidebar)
        assert (sidebar.cursor.panel, sidebar.cursor.block) == ("builtin/todo#plan", None)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ActionsMenu)
        assert "Explain this plan" in screen_text(app)
        await pilot.press("escape", "up", "right", "down")
        assert (sidebar.cursor.block, sidebar.cursor.item) == ("plan", "a")
        await pilot.press("left")
        assert (sidebar.cursor.panel, sidebar.cursor.block) == ("builtin/todo#todo", None)

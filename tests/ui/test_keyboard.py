"""Keyboard only: focus cycle, panel actions, palette, help, keymap, cancel, quit, copy,
small terminals."""

from __future__ import annotations

import base64

from textual.command import CommandPalette

from raw_tui import bus as ev
from raw_tui.commands import Cancel, Clear, Compact, PanelAction, Prompt, Quit, Reply
from raw_tui.ui.app import RawApp, osc52
from raw_tui.ui.screens.actions_menu import ActionsMenu
from raw_tui.ui.widgets.chat_view import ChatView
from raw_tui.ui.widgets.composer import Composer
from raw_tui.ui.widgets.sidebar import Sidebar

from . import events as E
from .helpers import screen_text


async def test_tab_cycles_composer_chat_sidebar(session):
    app = RawApp(session)
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(E.panel([E.BLOCKS["steps"]]))
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
    session.publish(E.panel([E.BLOCKS["checklist"]], actions=E.ACTIONS))
    await pilot.pause()
    await pilot.press("tab", "tab")


async def test_enter_on_a_panel_opens_its_actions_and_a_prompt_action_fills_the_composer(session):
    session.replies[PanelAction] = Reply(draft="Explain todo")
    app = RawApp(session)
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
    app = RawApp(session)
    async with app.run_test(size=(120, 30)) as pilot:
        await _sidebar_with_actions(session, pilot)
        await pilot.press("down", "down", "down")  # block, item a, item b
        cursor = app.query_one(Sidebar).cursor
        assert (cursor.block, cursor.item) == ("plan", "b")
        await pilot.press("enter")
        await pilot.pause()
        assert "Redo item" in screen_text(app) and "Explain this plan" not in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert session.sent(PanelAction) == [PanelAction(panel="builtin/todo#todo",
                                                         action="redo", block="plan", item="b")]
        assert session.sent(Prompt) == [Prompt(text="redo b")]


async def test_escape_closes_the_actions_menu_without_running_anything(session):
    app = RawApp(session)
    async with app.run_test(size=(120, 30)) as pilot:
        await _sidebar_with_actions(session, pilot)
        await pilot.press("enter", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, ActionsMenu)
        assert session.sent(PanelAction) == []


async def test_palette_lists_commands_and_panel_actions(session):
    app = RawApp(session)
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(E.panel([E.BLOCKS["steps"]], actions=E.ACTIONS))
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
    app = RawApp(session)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert app.screen.query("HelpPanel")
        assert "Enter sends" in screen_text(app)
        await pilot.press("f1")
        await pilot.pause()
        assert not app.screen.query("HelpPanel")


async def test_keymap_remaps_bindings_by_id(session):
    app = RawApp(session, ui_config={"keymap": {"raw.toggle_sidebar": "f5",
                                                "composer.send": "ctrl+s"}})
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
    app = RawApp(session)
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
    app = RawApp(session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert session.sent(Quit) == [Quit()]
    assert app.return_code == 0


async def test_tiny_terminal_still_shows_composer_and_quit(session):
    app = RawApp(session)
    async with app.run_test(size=(40, 12)) as pilot:
        session.publish(ev.UserMessage(text="hello"))
        await pilot.pause()
        text = screen_text(app)
        assert "Message" in text and "^q quit" in text.split("\n")[-1]
        composer = app.query_one(Composer)
        assert composer.region.height >= 3 and composer.region.bottom <= 11


async def test_copy_puts_the_focused_message_on_the_clipboard(session):
    app = RawApp(session)
    async with app.run_test(size=(80, 24)) as pilot:
        session.publish(ev.UserMessage(text="copy me"), ev.AssistantText(text="and **me**"))
        await pilot.pause()
        await pilot.press("tab")  # chat, cursor on the newest row
        await pilot.press("c")
        assert app.clipboard == "and **me**"
        await pilot.press("up", "c")
        assert app.clipboard == "copy me"


async def test_copy_a_sidebar_item(session):
    app = RawApp(session)
    async with app.run_test(size=(120, 30)) as pilot:
        session.publish(E.panel([E.BLOCKS["steps"]]))
        await pilot.pause()
        await pilot.press("tab", "tab", "down", "down", "c")
        assert app.clipboard == "1. ✔ Configure"


def test_osc52_sequence_and_tmux_wrapping():
    plain = osc52("hé", tmux=False)
    assert plain == "\x1b]52;c;" + base64.b64encode("hé".encode()).decode() + "\a"
    wrapped = osc52("hé", tmux=True)
    assert wrapped.startswith("\x1bPtmux;\x1b\x1b]52;c;") and wrapped.endswith("\a\x1b\\")


async def test_no_color_is_honoured(session, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = RawApp(session)
    assert app.no_color


async def test_no_cursor_blink_by_default_and_a_setting_turns_it_on(session):
    app = RawApp(session)
    async with app.run_test(size=(120, 40)) as pilot:
        session.publish(E.panel([E.FORM], pid="ask"))
        await pilot.pause()
        blinking = [w for w in app.query("Input, TextArea") if w.cursor_blink]
        assert blinking == [] and app.animation_level == "none"
    app = RawApp(session, ui_config={"cursor_blink": True, "animations": True})
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.query_one(Composer).cursor_blink

"""The app: the keymap, the command palette (its commands: palette.py), the theme and the
screen stack around one `MainScreen` (screens/main.py), and the client (`raw_tui.protocol.client`)
through which the session is reached. Events come in through the bridge (bridge.py);
commands go out through `send`. It holds no rule of its own."""

from __future__ import annotations

import asyncio
import base64
import os
import time
from pathlib import Path
from typing import Any, Iterable

import msgspec
from textual import events, log
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.screen import Screen

from ..protocol.bus import UserMessage
from ..protocol.client import SessionClient
from ..protocol.commands import Command, Quit, Reply, SavedSession, SessionInfo, UiSettings
from .bridge import EventBridge
from .neutral import NeutralClient
from .prefs import load_prefs, save_prefs
from .screens.main import MainScreen
from .styles import stylesheets
from .textual_private import DisplayHook, app_driver, redraw, set_clipboard, set_max_fps

QUIT_TIMEOUT = 10.0
CTRL_C_AGAIN_S = 2.0  # a second Ctrl+C within this many seconds quits (when nothing runs)
FIRST_FRAME_ENV = "RAW_TUI_FIRST_FRAME_FILE"  # benchmarks: write the time of the first frame, exit


class Resume(msgspec.Struct, frozen=True):
    """What the app returns when the user chose another saved session in the palette: the
    command line closes this session and opens that one in a new app."""

    session_id: str


def osc52(text: str) -> str:
    """The plain OSC 52 sequence that puts `text` on the terminal's clipboard. Never wrapped
    in a DCS passthrough: inside tmux that needs `allow-passthrough on`, while the plain
    sequence reaches the outer terminal with `set -g set-clipboard on` (see the README)."""
    return f"\x1b]52;c;{base64.b64encode(text.encode('utf-8')).decode('ascii')}\a"


def raw_driver_class(driver: type) -> type:
    """For Textual's `driver`: on Linux one that survives a hung-up terminal, in a browser tab
    textual-serve's; both read every form of Alt/Shift+Enter (ui/driver.py, ui/keys.py)."""
    if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
        from .driver import HangupSafeDriver

        return HangupSafeDriver
    if driver.__module__ == "textual.drivers.web_driver" and driver.__name__ == "WebDriver":
        from .browser_driver import BrowserDriver

        return BrowserDriver
    return driver


def _undo_commands() -> type:
    """The palette's undo entry (conversation/undo.py, loaded with the main screen): Textual
    asks a command provider of a callable when the palette opens."""
    from .conversation.undo import UndoCommands

    return UndoCommands


class RawApp(DisplayHook, App):  # frames through the driver's TerminalOutput, if any
    TITLE = "raw-tui"
    CSS_PATH = stylesheets("app", "chat", "sidebar", "composer", "status_line")
    # what no first frame draws (the chat's rows, a panel, a form): read right after it,
    # after the others (no rule of these ties with one of the sheets above on a node)
    LATER_CSS_PATH = stylesheets("chat_rows", "panel", "form", "welcome")
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {lambda: _undo_commands()}  # `Undo changes of this turn…`
    BINDINGS = [
        Binding("ctrl+q", "quit_session", "Quit", id="raw.quit", priority=True),
        Binding("ctrl+p", "command_palette", "Commands", id="raw.command_palette",
                priority=True),
        Binding("f1", "toggle_help", "Keys", id="raw.help"),
        Binding("ctrl+backslash", "detach", "Detach", id="raw.detach", show=False),
        Binding("ctrl+l", "redraw", "Redraw", id="raw.redraw", show=False, priority=True),
    ]

    def __init__(self, client: SessionClient, *, prefs_path: Path | None = None) -> None:
        """`client` is the session across the wall: events come through it, commands go
        back through it. A session not `ready` yet is opened right after the first frame.
        `prefs_path` is where the theme chosen in the palette is remembered (None: nowhere).
        The app holds `client` behind `NeutralClient`: whatever the session says is drawn
        with its controls shown escaped (neutral.py)."""
        super().__init__()
        self.prefs_path = prefs_path
        self.prefs, self.prefs_error = load_prefs(prefs_path)
        if self.prefs.theme in self.available_themes:
            self.theme = self.prefs.theme
        self.client: SessionClient = NeutralClient(client)
        self.bridge = EventBridge()
        self.startup_error: BaseException | None = None
        self._ready_marker: str | None = None
        self._opened = False
        self._later_css_read = False
        # Set when the session may be opened. The first frame's callback runs on the screen's
        # message pump; a key typed before it (a browser tab sends keys at once) leaves that
        # pump waiting in `send` for the session, so `send` sets it too.
        self._may_open = asyncio.Event()
        self.options = UiSettings()
        self.saved: list[SavedSession] = []  # other saved sessions, for the palette
        self.info: SessionInfo = self.client.info  # agent and model follow `agent_model` events
        self.animation_level = "none"
        # The first frame shows the composer's stand-in (widgets/stand_in.py) where there is
        # a first frame to hurry: a terminal, a browser; not headless (tests), unless set.
        self.composer_stand_in: bool | None = None
        # Keys (and pastes) read before the main screen has focused its composer: Textual
        # forwards a key to the focused widget or, with none yet, to the screen, which drops
        # it. A terminal's typed-ahead keys are read with the first input, before the focus
        # is set (on the app's queue, after them); they wait here until it is.
        self._early_input: list[events.Event] | None = []
        self.client.listen(self.bridge.deliver)

    def get_driver_class(self):
        return raw_driver_class(super().get_driver_class())

    def get_default_screen(self) -> Screen:
        info = self.client.info
        stand_in = not self.is_headless if self.composer_stand_in is None \
            else self.composer_stand_in
        return MainScreen(agent=info.agent, model=info.model, max_steps=info.max_steps,
                          starting=not self.client.ready, stand_in=stand_in)

    @property
    def main(self) -> MainScreen:
        return self.screen_stack[0]

    def on_mount(self) -> None:
        self.title = f"raw-tui · {self.client.info.agent}"
        if self.prefs_error:
            log.warning(f"ui preferences not read: {self.prefs_error}")
        self.theme_changed_signal.subscribe(self, self._remember_theme)

    def _remember_theme(self, theme: Any) -> None:
        """The theme chosen in the palette is the one the next start uses."""
        if theme.name != self.prefs.theme:
            self._remember(theme=theme.name)

    def _remember(self, **changes: Any) -> None:
        """Keep `changes` in the UI's preferences file (when there is one)."""
        if self.prefs_path is None:
            return
        self.prefs = msgspec.structs.replace(self.prefs, **changes)
        try:
            save_prefs(self.prefs_path, self.prefs)
        except OSError as err:
            self.notify(f"{', '.join(changes)} not remembered: {err}", severity="warning")

    async def on_event(self, event: events.Event) -> None:
        if self._early_input is not None and isinstance(event, (events.Key, events.Paste)) \
                and not event.is_forwarded:
            self._early_input.append(event)
            return
        await super().on_event(event)

    async def _release_early_input(self) -> None:
        """The composer (or its stand-in) has the focus: the keys held meanwhile go to it,
        in order, ahead of any key read after them."""
        held, self._early_input = self._early_input or [], None
        for event in held:
            await super().on_event(event)

    def main_screen_ready(self) -> None:
        """The main screen is composed and has asked for the composer's focus: the keys read
        before are let through once it has it; open the session (now when it is there
        already, after the first frame when it must be loaded)."""
        self.call_later(self._release_early_input)  # queued after the focus change
        marker = os.environ.get(FIRST_FRAME_ENV)
        if marker:
            self.call_after_refresh(self._first_frame, marker)
        self.call_after_refresh(self._read_later_css)
        self.call_after_refresh(self.main.mount_composer)
        if self.client.ready:
            self._may_open.set()
        else:  # after the first frame, or at once when a command waits for the session
            self.call_after_refresh(self._may_open.set)
        self.run_worker(self._open(), group="open")

    def _read_later_css(self) -> None:
        """The sheets the first frame does not need, once: right after that frame, or before
        the session's first event is drawn if that comes first (a panel laid out without its
        sheet would keep the scroll position of that layout). The nodes there are restyled
        (the others' rules are not parsed again: the stylesheet keeps them)."""
        if self._later_css_read:
            return
        self._later_css_read = True
        self.stylesheet.read_all(self.LATER_CSS_PATH)
        self.stylesheet.parse()
        self.stylesheet.update(self)

    def _first_frame(self, marker: str) -> None:
        """Benchmarks: note when the main screen's first frame was drawn; quit once the
        session is open too (noting when)."""
        Path(marker).write_text(f"{time.time()!r}\n", encoding="utf-8")
        self._ready_marker = marker
        if self._opened:
            self._session_ready()

    def _session_ready(self) -> None:
        if self._ready_marker:
            with open(self._ready_marker, "a", encoding="utf-8") as out:
                out.write(f"{time.time()!r}\n")
            self.exit()

    async def _open(self) -> None:
        """Open the session (loading the engine, when it is in this process): adopt its
        settings, draw the saved history, then the events published meanwhile. A config or
        resume error ends the app with it."""
        await self._may_open.wait()
        await asyncio.sleep(0)
        try:
            opened = await self.client.open()
        except Exception as err:
            self.startup_error = err
            self.exit(return_code=1)
            return
        self._adopt(opened.ui)
        self.info = opened.info
        self.title = f"raw-tui · {opened.info.agent}"
        self.main.status_line.set_info(opened.info)
        self._read_later_css()
        self.bridge.release(self.main, opened.replay)
        self._opened = True
        from . import welcome  # after the first frame: its card is rarely shown

        if self.prefs_path is not None and welcome.first_run(self.prefs.welcome_seen) \
                and not any(isinstance(e, UserMessage) for e in opened.replay):
            await self.main.chat.add_first(welcome.WelcomeCard())
            self._remember(welcome_seen=True)  # shown once, even if the app is quit at once
        try:
            self.saved = await self.client.saved_sessions()
        except Exception as err:
            log.error(f"listing sessions failed: {err!r}")
        if self._ready_marker:
            self.call_after_refresh(self._session_ready)

    def _adopt(self, options: UiSettings) -> None:
        self.options = options
        if options.keymap:
            self.set_keymap(dict(options.keymap))
        self.main.adopt(cursor_blink=options.cursor_blink, max_chat_items=options.max_chat_items)
        self.animation_level = "full" if options.animations else "none"
        set_max_fps(self, options.max_fps)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self.bridge.close()  # events still coming are not drawn
        super().exit(*args, **kwargs)

    async def send(self, command: Command, *, notify: bool = True) -> Reply:
        """One command to the session; a refusal is notified unless `notify` is False."""
        self._may_open.set()  # the command waits for the session: open it now
        try:
            reply = await self.client.handle(command)
        except Exception as err:
            log.error(f"{type(command).__name__} failed: {err!r}")
            reply = Reply(ok=False, message=str(err))
        if reply is None:
            reply = Reply()
        if not reply.ok and notify:
            self.notify(reply.message or reply.code or "refused", severity="error")
        return reply

    def switched(self, agent: str, model: str) -> None:
        """An `agent_model` event: the palette offers the others now."""
        self.info = msgspec.structs.replace(self.info, agent=agent, model=model)
        self.title = f"raw-tui · {agent}"

    def copy_to_clipboard(self, text: str) -> None:
        set_clipboard(self, text)
        driver = app_driver(self)
        if driver is not None:
            driver.write(osc52(text))

    # actions ------------------------------------------------------------------------------
    async def action_quit_session(self) -> None:
        await self._close_session()
        self.exit()

    async def action_help_quit(self) -> None:
        """Ctrl+C (Textual's own binding; copy wins where text is selected): cancels the
        running turn, as Esc does; when nothing runs it says how to quit, and a second
        Ctrl+C within CTRL_C_AGAIN_S quits as Ctrl+Q does."""
        main = self.main
        state = main.status_line.status.state
        if state in ("running", "cancelling"):
            self._ctrl_c_at = 0.0
            if state == "running":
                await main.action_cancel_turn()
            self.notify(f"Ctrl+C: cancelling the turn ({self.key_for('cancel_turn', 'Esc')}"
                        " does the same)", timeout=3)
            return
        now = time.monotonic()
        if now - self._ctrl_c_at <= CTRL_C_AGAIN_S:
            await self.action_quit_session()
            return
        self._ctrl_c_at = now
        quit_key, cancel_key = self.key_for("quit_session", "Ctrl+Q"), self.key_for(
            "cancel_turn", "Esc")
        self.notify(f"Ctrl+C again to quit · {quit_key} quits · {cancel_key} cancels a "
                    "running turn", timeout=CTRL_C_AGAIN_S + 1)

    _ctrl_c_at = 0.0

    def key_for(self, action: str, default: str) -> str:
        """How the key bound to `action` reads (after the user's keymap)."""
        for binding in self.active_bindings.values():
            if binding.binding.action == action:
                return self.get_key_display(binding.binding)
        return default

    def action_redraw(self) -> None:
        """Write the whole screen again (after something else wrote over it)."""
        redraw(self)

    def action_detach(self) -> None:
        """Leave the session running in its host (`raw-tui attach` comes back to it)."""
        client = getattr(self.client, "inner", self.client)  # through an encoding transport
        if not getattr(client, "detachable", False):
            self.notify("this session runs inside the UI (--no-detach): Ctrl+Q ends it",
                        severity="warning")
            return
        self.exit()

    async def _close_session(self) -> None:
        try:
            await asyncio.wait_for(self.client.handle(Quit()), QUIT_TIMEOUT)
        except Exception as err:
            log.error(f"quit: {err!r}")

    def action_toggle_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_show_help_panel(self) -> None:
        """raw-tui's keys where the focus is, not Textual's generic ones (widgets/keys_help.py)."""
        if not self.screen.query("HelpPanel"):
            from .widgets.keys_help import KeysHelp

            self.screen.mount(KeysHelp())

    async def action_command_palette(self) -> None:
        """The palette, with the saved sessions as they are now."""
        try:
            self.saved = await self.client.saved_sessions()
        except Exception as err:
            log.error(f"listing sessions failed: {err!r}")
        if self.use_command_palette and not CommandPalette.is_open(self):
            from .palette import Palette

            self.push_screen(Palette(id="--command-palette"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from .palette import system_commands

        return system_commands(self, super().get_system_commands(screen))

    async def resume_session(self, session_id: str) -> None:
        """Close this session cleanly (as Ctrl+Q does), then reopen `session_id`."""
        await self._close_session()
        self.exit(Resume(session_id))

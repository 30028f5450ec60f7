"""What raw_tui/ui/textual_private.py relies on in Textual, checked so that an upgrade that
changes it fails here, loudly, rather than on a user's terminal: the names it reads, and that
Textual's own updates laid into cells (raw_tui/ui/terminal_output.py) draw exactly what
Textual's own output draws, read back by a terminal emulator."""

from __future__ import annotations

import inspect

import pyte
import pytest
from rich.style import Style as RichStyle
from textual import events
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.driver import Driver
from textual.drivers import linux_driver, web_driver
from textual.drivers.linux_driver import LinuxDriver
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Label, RadioButton, SelectionList, Static, TextArea

from raw_tui.ui import textual_private
from raw_tui.ui.frame_cells import StyleCodes, blank_grid
from raw_tui.ui.frames import frame
from raw_tui.ui.terminal_output import lay_chops, lay_layout
from tests.e2e.slow_link_kit import BceScreen, cells


def relied_on(owner, name: str, *, params: set[str] = frozenset()) -> None:
    """`owner.name` exists (a method, a property, a class attribute), taking `params`."""
    where = f"{getattr(owner, '__module__', owner)}.{getattr(owner, '__qualname__', owner)}"
    assert hasattr(owner, name), \
        f"Textual no longer has {where}.{name}: raw_tui/ui/textual_private.py relies on it"
    if params:
        found = set(inspect.signature(getattr(owner, name)).parameters)
        assert params <= found, (f"{where}.{name} takes {sorted(found)}, no longer "
                                 f"{sorted(params)}: raw_tui/ui/textual_private.py relies on it")


def reads(function, text: str) -> None:
    """Textual's own `function` still does what textual_private.py relies on (it reads or
    calls `text`)."""
    assert text in inspect.getsource(function), \
        (f"{function.__module__}.{function.__qualname__} no longer reads {text!r}: "
         f"raw_tui/ui/textual_private.py relies on it")


def test_the_names_relied_on_are_there():
    relied_on(App, "_display", params={"screen", "renderable"})
    assert {"strips", "region"} <= set(vars(LayoutUpdate(strips=[], region=None))), \
        "textual._compositor.LayoutUpdate changed: raw_tui/ui/terminal_output.py reads it"
    assert {"chops", "spans", "chop_ends"} <= set(vars(ChopsUpdate([], [(0, 0, 0)], []))), \
        "textual._compositor.ChopsUpdate changed: raw_tui/ui/terminal_output.py reads it"
    relied_on(LinuxDriver, "process_message", params={"message"})
    relied_on(LinuxDriver, "start_application_mode")
    relied_on(Strip, "render_ansi")
    assert {"x", "y"} <= set(inspect.signature(events.CursorPosition).parameters)
    app = App()
    for name in ("_batch_count", "_running", "_closed", "_sync_available", "_driver",
                 "_dom_ready", "_clipboard", "_closing", "_background_screens"):
        assert hasattr(app, name), f"Textual's App has no {name} any more: textual_private.py"
    relied_on(App, "_handle_exception", params={"error"})
    reads(App.copy_to_clipboard, "self._clipboard")
    reads(App.clipboard.fget, "self._clipboard")
    assert hasattr(app.console, "_color_system"), "Rich's Console has no _color_system"


def test_the_screen_and_widget_names_relied_on_are_there():
    relied_on(Screen, "_refresh_layout")
    reads(Screen.__init__, "self._compositor = Compositor()")
    relied_on(Compositor, "render_update", params={"full", "screen_stack"})
    relied_on(Widget, "_forward_event", params={"event"})
    reads(App.on_event, "self.focused._forward_event(event)")
    relied_on(TextArea, "_on_key", params={"event"})
    reads(MessagePump._get_dispatch_methods, 'f"_{method_name}"')
    reads(MessagePump._get_dispatch_methods, "_no_default_action")
    from textual.widgets._toggle_button import ToggleButton
    for name in ("BUTTON_LEFT", "BUTTON_INNER", "BUTTON_RIGHT"):
        relied_on(ToggleButton, name)
    relied_on(ToggleButton, "_button")
    assert isinstance(inspect.getattr_static(ToggleButton, "_button"), property), \
        "ToggleButton._button is no longer a property: textual_private.ButtonFace overrides it"
    assert RadioButton.__mro__[1] is ToggleButton
    reads(SelectionList.render_line, "ToggleButton.BUTTON_LEFT")
    style = RichStyle(bold=True)
    assert hasattr(style, "_ansi"), "Rich's Style has no _ansi cache: textual_private.py"


def test_the_driver_names_relied_on_are_there():
    relied_on(XTermParser, "_sequence_to_key_events", params={"sequence", "alt"})
    reads(XTermParser.parse, "self._sequence_to_key_events")
    for module in (linux_driver, web_driver):
        assert module.XTermParser is XTermParser or issubclass(module.XTermParser, XTermParser), \
            f"{module.__name__} no longer builds XTermParser by its module-level name"
        reads(module, "XTermParser(")
    relied_on(LinuxDriver, "_sigcont_application")
    reads(LinuxDriver.__init__, "signal.SIGCONT, self._sigcont_application")
    reads(LinuxDriver.start_application_mode, "self._writer_thread")
    reads(Driver.__init__, "self._loop = ")


def test_the_mixins_reach_textuals_own_methods():
    """Each mixin of textual_private.py sits before the Textual class it hooks, so that its
    override is the one Textual calls."""
    from raw_tui.ui.app import RawApp
    from raw_tui.ui.driver import HangupSafeDriver
    from raw_tui.ui.keys import KeyParser
    from raw_tui.ui.widgets.composer import Composer
    from raw_tui.ui.widgets.form_view import Choice
    from raw_tui.ui.widgets.stand_in import ComposerStandIn

    for cls, name, mixin in ((RawApp, "_display", textual_private.DisplayHook),
                             (HangupSafeDriver, "_sigcont_application", textual_private.ResumeGate),
                             (KeyParser, "_sequence_to_key_events", textual_private.SequenceKeys),
                             (Composer, "_on_key", textual_private.KeyBeforeTextArea),
                             (Choice, "_button", textual_private.ButtonFace),
                             (ComposerStandIn, "_forward_event", textual_private.ForwardedEvents)):
        owner = next(base for base in cls.__mro__ if name in vars(base))
        assert owner is mixin, f"{cls.__name__}.{name} is {owner.__qualname__}'s, not {mixin.__name__}'s"
    assert textual_private.toggle_button_glyphs() == "▐X▌"


def test_no_other_module_of_raw_tui_uses_textuals_private_names():
    """Every underscored name of Textual's (or Rich's) that raw_tui reads, calls or overrides
    is in textual_private.py."""
    import re
    from pathlib import Path

    import rich
    import textual

    private: set[str] = set()
    for root in (Path(textual.__file__).parent, Path(rich.__file__).parent):
        for path in root.rglob("*.py"):
            text = path.read_text(errors="ignore")
            private |= set(re.findall(r"self\.(_[a-z]\w*)\s*[:=]", text))
            private |= set(re.findall(r"def (_[a-z]\w*)", text))
    ui = Path(textual_private.__file__).parent
    found = []
    for path in sorted(ui.rglob("*.py")):
        if path.name == "textual_private.py":
            continue
        text = path.read_text()
        if re.search(r"from textual\S*\._[a-z]|import textual\S*\._[a-z]", text):
            found.append(f"{path.name}: imports a private module of Textual's")
        ours = set(re.findall(r"self\.(_[a-z]\w*)\s*(?::[^=\n]*)?=", text))
        for name in set(re.findall(r"(?:\.|def )(_[a-z]\w*)", text)) & private:
            defined = re.search(rf"def {name}\b", text)
            if name in ours and not defined:
                continue  # an attribute of our own that happens to share a name
            if defined and not _overrides_textual(path, name):
                continue
            found.append(f"{path.name}: {name}")
    assert not found, f"Textual's private names outside textual_private.py: {found}"


def _overrides_textual(path, name: str) -> bool:
    """Whether a class of `path`'s module defines `name` that a Textual class also defines."""
    import importlib
    from pathlib import Path

    ui = Path(textual_private.__file__).parent
    module = importlib.import_module(
        "raw_tui.ui." + ".".join(path.relative_to(ui).with_suffix("").parts))
    for cls in vars(module).values():
        if inspect.isclass(cls) and cls.__module__ == module.__name__ and name in vars(cls):
            if any(base.__module__.startswith(("textual", "rich")) and name in vars(base)
                   for base in cls.__mro__[1:]):
                return True
    return False


def emulate(*texts: str, size) -> list[list[tuple]]:
    screen = BceScreen(*size)
    stream = pyte.Stream(screen)
    for text in texts:
        stream.feed(text)
    return cells(screen)  # as they look (a blank's foreground does not show)


class Sample(App):
    CSS = "Static { height: 3; border: round $accent; } #b { background: $boost; }"

    def compose(self):
        yield Static("first · [b]bold[/b] and [i]italic[/i] 中文", id="a")
        yield Static("second", id="b")
        yield Label("[link='https://example.test']a link[/link]")


async def test_textual_updates_laid_into_cells_draw_what_textual_draws():
    size = (50, 12)
    app = Sample()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        console = app.console
        codes = StyleCodes(console._color_system)

        full = compositor.render_update(full=True)
        assert isinstance(full, LayoutUpdate)
        grid = blank_grid(*size)
        lay_layout(full)(grid, codes)
        textual_full = full.render_segments(console)
        ours_full, shown, _ = frame(None, grid)
        assert emulate(ours_full, size=size) == emulate(textual_full, size=size)

        app.query_one("#b", Static).update("second, changed: [u]underlined[/u]")
        await pilot.pause()
        app.screen._compositor._dirty_regions.add(app.query_one("#b").region)
        partial = compositor.render_update()
        assert isinstance(partial, ChopsUpdate)
        lay_chops(partial)(grid, codes)
        ours_partial, _, _ = frame(shown, grid)
        assert emulate(ours_full, ours_partial, size=size) == \
            emulate(textual_full, partial.render_segments(console), size=size)


class Scrolled(App):
    """A scrolled list whose every update Textual hands `_display` is laid into `grid`, as
    raw_tui/ui/terminal_output.py lays them: `grid` is what a terminal shows."""

    CSS = "#foot { dock: bottom; height: 1; }"

    def __init__(self, screen_class: type) -> None:
        super().__init__()
        self.screen_class = screen_class
        self.grid = None

    def get_default_screen(self) -> Screen:
        return self.screen_class()

    def compose(self):
        from textual.containers import VerticalScroll

        with VerticalScroll():
            yield from (Static(f"row {i}") for i in range(40))
        yield Static("status", id="foot")

    def _display(self, screen, renderable) -> None:
        if self.grid is None:
            self.grid = blank_grid(*self.size)
        lay = textual_private.lay_of(renderable)
        if lay is not None:
            lay(self.grid, StyleCodes(self.console._color_system))


class ExactDefault(textual_private.ExactScreen, Screen):
    pass


@pytest.mark.parametrize("screen_class", [
    ExactDefault,
    pytest.param(Screen, marks=pytest.mark.xfail(strict=True, reason=(
        "Textual's own compositor keeps the scrolled rows; when this passes, Textual has "
        "fixed it and textual_private.ExactReflow can go")))], ids=["ExactScreen", "Screen"])
async def test_a_layout_after_a_scroll_repaints_what_the_scroll_moved(screen_class):
    """A container scrolled (Textual's fast path draws only what is visible), then scrolled
    back while something else needs a full layout: the terminal shows the rows of the
    position it ended at. With Textual's own compositor (`Screen`) it kept the rows of the
    scrolled position, its scrollbar alone redrawn."""
    from textual.containers import VerticalScroll

    size = (30, 10)
    app = Scrolled(screen_class)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        box = app.query_one(VerticalScroll)
        box.scroll_to(y=5, animate=False, immediate=True)
        await pilot.pause()
        assert "row 5" in text_of(app.grid)[0]
        box.scroll_to(y=0, animate=False, immediate=True)
        app.query_one("#foot", Static).update("status, changed")  # a full layout, in the
        # same frame as the scroll back, that moves nothing
        await pilot.pause()
        await pilot.pause()
        full = blank_grid(*size)
        textual_private.lay_of(textual_private.full_update(app))(
            full, StyleCodes(app.console._color_system))
        assert text_of(app.grid) == text_of(full)
        assert text_of(app.grid)[0].startswith("row 0")


def text_of(grid) -> list[str]:
    return ["".join(cell[0] for cell in row) for row in grid]


def test_every_screen_of_raw_tui_draws_with_the_exact_compositor():
    import pkgutil
    import importlib

    import raw_tui.ui.screens as screens

    found = []
    names = [f"raw_tui.ui.screens.{info.name}" for info in pkgutil.iter_modules(screens.__path__)]
    for name in names + ["raw_tui.ui.palette"]:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Screen) and \
                    value.__module__ == module.__name__:
                found.append(value)
                assert issubclass(value, textual_private.ExactScreen), \
                    f"{value.__qualname__} draws with Textual's own compositor"
    assert len(found) >= 6

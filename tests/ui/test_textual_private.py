"""What raw_tui/ui/textual_private.py relies on in Textual, checked so that an upgrade that
changes it fails here, loudly, rather than on a user's terminal: the names it reads, and that
Textual's own updates laid into cells (raw_tui/ui/terminal_output.py) draw exactly what
Textual's own output draws, read back by a terminal emulator."""

from __future__ import annotations

import inspect

import pyte
from textual import events
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.app import App
from textual.drivers.linux_driver import LinuxDriver
from textual.strip import Strip
from textual.widgets import Label, Static

from raw_tui.ui.frames import StyleCodes, blank_grid, frame
from raw_tui.ui.terminal_output import lay_chops, lay_layout
from tests.e2e.slow_link_kit import cells


def test_the_names_relied_on_are_there():
    assert "renderable" in inspect.signature(App._display).parameters
    assert {"strips", "region"} <= set(vars(LayoutUpdate(strips=[], region=None)))
    assert {"chops", "spans", "chop_ends"} <= set(vars(ChopsUpdate([], [(0, 0, 0)], [])))
    assert callable(LinuxDriver.process_message) and callable(LinuxDriver.start_application_mode)
    assert callable(Strip.render_ansi)
    assert {"x", "y"} <= set(inspect.signature(events.CursorPosition).parameters)
    app = App()
    for name in ("_batch_count", "_running", "_closed", "_sync_available", "_driver"):
        assert hasattr(app, name), name
    assert hasattr(app.console, "_color_system")


def emulate(*texts: str, size) -> list[list[tuple]]:
    screen = pyte.Screen(*size)
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

"""Every use of Textual's private API (and of Rich's, which draws for it), in one place.

Textual has no public hook for these; each is a small named function or mixin here, saying
what it relies on, and each is checked by tests/ui/test_textual_private.py, which fails
loudly when a Textual upgrade changes what is relied on (textual is pinned below its next
major in pyproject.toml). No other module of raw_tui reads or overrides an underscored name
of Textual's.

It imports only Textual (no module of raw_tui at import time: ui/frame_cells.py and ui/keys.py
import it), and nothing that the first frame does not import anyway.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Callable, Iterable

from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual._xterm_parser import XTermParser


# --- the compositor --------------------------------------------------------------------------

class ExactReflow:
    """Mixin for Textual's `Compositor`: a layout after a scroll repaints what moved.

    A scroll takes Textual's fast path (`reflow_visible`), which arranges and draws only the
    visible widgets and leaves the full map as it was. The next full layout (`reflow`) finds
    what to repaint by comparing its map with that old full map, not with what the scroll
    drew: a container scrolled back to where it was at the last full layout (a form opened in
    the chat while a reply streamed) repainted only its scrollbar, and the terminal kept the
    rows of the other position, for good. Here the visible widgets' places the scroll drew
    are compared too, and every region that differs is repainted.
    Relies on `Compositor.reflow(parent, size)`, `reflow_visible(parent, size)`,
    `_visible_map` (what `reflow_visible` arranged), `_full_map`, `_dirty_regions` and the
    `region`/`clip` of its map's geometry."""

    _drawn: Any = None  # the visible map the last scroll drew; None after a full layout

    def reflow_visible(self, parent: Any, size: Any) -> Any:
        exposed = super().reflow_visible(parent, size)  # type: ignore[misc]
        # kept here: Textual drops its `_visible_map` whenever something asks for the full
        # map (where a widget is), and what was drawn is what counts
        self._drawn = self._visible_map
        return exposed

    def reflow(self, parent: Any, size: Any) -> Any:
        drawn, self._drawn = self._drawn, None
        result = super().reflow(parent, size)  # type: ignore[misc]
        if drawn is None or size.region in self._dirty_regions:
            return result
        now = self._full_map
        for widget in drawn.keys() | now.keys():  # where each widget is, drawn and now
            before, after = drawn.get(widget), now.get(widget)
            if before is not None and after is not None and \
                    (before.region, before.clip) == (after.region, after.clip):
                continue
            for geometry in (before, after):
                if geometry is not None:
                    region = geometry.clip.intersection(geometry.region)
                    if region:
                        self._dirty_regions.add(region)
        return result


class ExactCompositor(ExactReflow, Compositor):
    pass


class ExactScreen:
    """Mixin for a `Screen`: its compositor is the one above. Relies on `Screen._compositor`
    (made in `Screen.__init__`, first used at the screen's first layout)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = ExactCompositor()


# --- the app ---------------------------------------------------------------------------------

def app_driver(app: Any) -> Any:
    """The app's driver, None before it runs and after. Relies on `App._driver` (Textual has
    no public accessor; `App.is_headless` and friends read it the same way)."""
    return app._driver


def set_clipboard(app: Any, text: str) -> None:
    """Remember `text` as the app's clipboard, as `App.copy_to_clipboard` does (what
    `App.clipboard` answers). Relies on `App._clipboard`."""
    app._clipboard = text


class DisplayHook:
    """Mixin for an `App`: each frame Textual would write goes first to `display_frames`
    below, and to Textual's own writer only when that declines it. Relies on
    `App._display(screen, renderable)`, through which Textual writes every frame."""

    def _display(self, screen: Any, renderable: Any) -> None:
        if not display_frames(self, renderable):
            super()._display(screen, renderable)  # type: ignore[misc]


def display_frames(app: Any, renderable: Any) -> bool:
    """`App._display` for a driver with a `TerminalOutput` (raw_tui/ui/terminal_output.py):
    Textual's update is laid into the output's grid, which writes the frame when the
    terminal is ready. False: Textual's own path draws it (no such driver, or something other
    than a compositor update, after which the terminal's contents are not known).
    Relies on `App._driver`, `Screen._compositor.render_update(full=, screen_stack=)`,
    `App._background_screens`, the `LayoutUpdate`/`ChopsUpdate` of `textual._compositor`,
    `App._batch_count`, `_running`, `_closed`, `_sync_available`, `_handle_exception` and
    `console._color_system` (Rich's), as Textual's own `App._display` reads them."""
    driver = app._driver
    output = getattr(driver, "output", None)
    if output is None:
        return False
    if renderable is None:  # Textual found nothing to draw: a lost repaint looks like this
        output.touched()
        return False
    if isinstance(renderable, ChopsUpdate) and not output.knows(*app.size):
        # a part of the screen, to a grid that holds nothing yet (a new output after a
        # resume, a new size): the whole screen instead
        renderable = full_update(app)
    lay = lay_of(renderable)
    if lay is None:
        output.invalidate()
        return False
    try:
        if app._batch_count or not app._running or app._closed or driver.is_inline:
            return True
        if output.settle is None:
            output.settle = lambda: settle_screen(app)
        lay_update(app, output, lay)
    except Exception as error:  # as Textual's own _display does
        app._handle_exception(error)
    finally:
        app.post_display_hook()
    return True


def lay_of(update: Any) -> Callable | None:
    """How a compositor update is laid into a grid of cells (raw_tui/ui/terminal_output.py);
    None for anything else."""
    from .terminal_output import lay_chops, lay_layout  # (imports ui/frame_cells.py, which imports this)

    if isinstance(update, LayoutUpdate):
        return lay_layout(update)
    if isinstance(update, ChopsUpdate):
        return lay_chops(update)
    return None


def full_update(app: Any) -> Any:
    """The whole current screen (with the screens it is drawn over), as Textual renders it."""
    return app.screen._compositor.render_update(full=True,
                                                screen_stack=app._background_screens)


def lay_update(app: Any, output: Any, lay: Callable, settling: bool = False) -> None:
    cursor = app.screen.outer_size.clamp_offset(app.cursor_position)
    width, height = app.size
    output.update(width, height, lay, (cursor.x, cursor.y), app.console._color_system,
                  app._sync_available, settling)


def settle_screen(app: Any) -> None:
    """The whole current screen drawn again into the output's grid, once the screen has been
    quiet (raw_tui/ui/terminal_output.py): what differs from what the terminal was sent is
    a cell an update of Textual's left stale, and is written. Relies on what
    `display_frames` relies on."""
    output = getattr(app._driver, "output", None)
    if output is None or app._batch_count or not app._running or app._closed:
        return
    try:
        lay = lay_of(full_update(app))
        if lay is not None:
            lay_update(app, output, lay, settling=True)
    except Exception as error:
        app._handle_exception(error)


def redraw(app: Any) -> None:
    """Every cell written again: through the TerminalOutput, or Textual's full repaint.
    Relies on `App._driver`."""
    output = getattr(app._driver, "output", None)
    if output is not None:
        output.invalidate()
        output.flush()
    else:
        app.refresh(repaint=True)


def set_max_fps(app: Any, fps: float) -> None:
    """`ui.max_fps`, for the driver's TerminalOutput (RAW_TUI_FPS wins when set). Relies on
    `App._driver`."""
    setter = getattr(app._driver, "set_max_fps", None)
    if setter is not None:
        setter(fps)


# --- screens and widgets ---------------------------------------------------------------------

def draw_now(screen: Any) -> None:
    """Lay out and draw `screen` at once, when it is the current screen and the app has drawn
    its first frame and is not inside a batch of updates; otherwise nothing (Textual draws at
    its next frame tick). Relies on `App._dom_ready`, `App._batch_count` and
    `Screen._refresh_layout()`, which Textual's own frame tick calls."""
    app = screen.app
    if screen.is_current and app._dom_ready and not app._batch_count:
        screen._refresh_layout()


def is_closing(node: Any) -> bool:
    """Whether Textual is removing `node` (a screen popped, the app quitting), while it is
    still attached. Relies on `MessagePump._closing`."""
    return node._closing


def forward_event(widget: Any, event: Any) -> None:
    """Hand `event` to `widget` as the app hands the focused widget a key or a paste. Relies
    on `Widget._forward_event(event)`."""
    widget._forward_event(event)


class ForwardedEvents:
    """Mixin for a `Widget`: each event the app forwards to it (the focused widget's keys and
    pastes) goes first to `take_forwarded(event)`; False lets Textual handle it as usual.
    Relies on `Widget._forward_event(event)`, through which the app forwards them."""

    def take_forwarded(self, event: Any) -> bool:
        return False

    def _forward_event(self, event: Any) -> None:
        if not self.take_forwarded(event):
            super()._forward_event(event)  # type: ignore[misc]


class KeyBeforeTextArea:
    """Mixin for a `TextArea`: each key goes first to `key_first(event)`, and on to the text
    area's own handling (inserting the key, Enter as a newline) only when that returns False.
    Relies on `TextArea._on_key(event)`, Textual's handler of a key in a text area, and on
    Textual calling the `_on_key` of each class along the MRO until one prevents the
    default. (No import of TextArea here: it is not in the first frame.)"""

    async def key_first(self, event: Any) -> bool:
        return False

    async def _on_key(self, event: Any) -> None:
        if not await self.key_first(event):
            await super()._on_key(event)  # type: ignore[misc]


class ButtonFace:
    """Mixin for a `ToggleButton` (a `RadioButton`, a `Checkbox`): its box is what
    `button_face()` returns. Relies on the `ToggleButton._button` property, which Textual
    draws as the box."""

    def button_face(self) -> Any:
        return super()._button  # type: ignore[misc]

    @property
    def _button(self) -> Any:
        return self.button_face()


@cache
def toggle_button_glyphs() -> str:
    """The three characters Textual draws as a toggle button's box (a `SelectionList`
    option's, unselected or selected alike). Relies on `BUTTON_LEFT`, `BUTTON_INNER` and
    `BUTTON_RIGHT` of `textual.widgets._toggle_button.ToggleButton` (not exported)."""
    from textual.widgets._toggle_button import ToggleButton

    return ToggleButton.BUTTON_LEFT + ToggleButton.BUTTON_INNER + ToggleButton.BUTTON_RIGHT


def rich_style_sgr(style: Any) -> str | None:
    """The SGR parameters Rich has already computed for `style`, None when it has not.
    Relies on Rich's `Style._ansi` cache."""
    return style._ansi


# --- the drivers -----------------------------------------------------------------------------

class SequenceKeys(XTermParser):
    """Textual's xterm input parser, with `sequence_keys(sequence, alt)` to override: the keys
    one escape sequence reads as (Textual's reading unless overridden). Relies on
    `textual._xterm_parser.XTermParser` and its `_sequence_to_key_events(sequence, alt)`."""

    def sequence_keys(self, sequence: str, alt: bool = False) -> Iterable[Any]:
        return super()._sequence_to_key_events(sequence, alt)

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[Any]:
        return self.sequence_keys(sequence, alt)


def use_key_parser(driver_module: Any, parser: type) -> None:
    """Textual's drivers build `XTermParser` by its module-level name when their input thread
    starts: `driver_module` (textual.drivers.linux_driver, .web_driver) builds `parser`
    instead. Relies on that module-level name."""
    if getattr(driver_module, "XTermParser", None) is XTermParser:
        driver_module.XTermParser = parser


def writer_thread(driver: Any) -> Any:
    """The Linux driver's output thread, None outside application mode. Relies on
    `LinuxDriver._writer_thread`."""
    return driver._writer_thread


def call_on_app_loop(driver: Any, callback: Callable[[], Any]) -> None:
    """Run `callback` on the app's event loop, from the driver's input thread. Relies on
    `Driver._loop` (the app's loop, taken when the driver was made)."""
    driver._loop.call_soon_threadsafe(callback)


class ResumeGate:
    """Mixin for a `LinuxDriver`: Textual's SIGCONT handler (the end of a Ctrl+Z suspension:
    application mode resumed) runs only when `may_resume()`. Relies on
    `LinuxDriver._sigcont_application`, which Textual installs as the SIGCONT handler."""

    def may_resume(self) -> bool:
        return True

    def _sigcont_application(self, *args: Any) -> None:
        if self.may_resume():
            super()._sigcont_application(*args)  # type: ignore[misc]

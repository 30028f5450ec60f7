"""Every use of Textual's private API, in one place.

Textual has no public hook for these; each is checked by tests/ui/test_textual_private.py,
which fails loudly when a Textual upgrade changes what is relied on here (textual is pinned
below its next major in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from textual._compositor import ChopsUpdate, LayoutUpdate

from .terminal_output import lay_chops, lay_layout


def display_frames(app: Any, renderable: Any) -> bool:
    """`App._display` for a driver with a `TerminalOutput` (raw_tui/ui/terminal_output.py):
    Textual's update is laid into the output's grid, which writes the frame when the
    terminal is ready. False: Textual's own path draws it (no such driver, or something other
    than a compositor update, after which the terminal's contents are not known)."""
    driver = app._driver
    output = getattr(driver, "output", None)
    if output is None or renderable is None:
        return False
    if isinstance(renderable, ChopsUpdate) and not output.knows(*app.size):
        # a part of the screen, to a grid that holds nothing yet (a new output after a
        # resume, a new size): the whole screen instead
        renderable = app.screen._compositor.render_update(
            full=True, screen_stack=app._background_screens)
    if isinstance(renderable, LayoutUpdate):
        lay = lay_layout(renderable)
    elif isinstance(renderable, ChopsUpdate):
        lay = lay_chops(renderable)
    else:
        output.invalidate()
        return False
    try:
        if app._batch_count or not app._running or app._closed or driver.is_inline:
            return True
        cursor = app.screen.outer_size.clamp_offset(app.cursor_position)
        width, height = app.size
        output.update(width, height, lay, (cursor.x, cursor.y), app.console._color_system,
                      app._sync_available)
    except Exception as error:  # as Textual's own _display does
        app._handle_exception(error)
    finally:
        app.post_display_hook()
    return True


def redraw(app: Any) -> None:
    """Every cell written again: through the TerminalOutput, or Textual's full repaint."""
    output = getattr(app._driver, "output", None)
    if output is not None:
        output.invalidate()
        output.flush()
    else:
        app.refresh(repaint=True)


def set_max_fps(app: Any, fps: float) -> None:
    """`ui.max_fps`, for the driver's TerminalOutput (RAW_TUI_FPS wins when set)."""
    setter = getattr(app._driver, "set_max_fps", None)
    if setter is not None:
        setter(fps)

"""A Static whose content is built by a method that may fail on bad input: the failure is
logged and the widget shows one error line instead of taking the session down. Failures
while the built renderable is drawn (Rich renders lazily, at layout and paint time) are
caught the same way."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual import log
from textual.widgets import Static


def error_line(err: Exception) -> Text:
    return Text(f"⚠ cannot draw this ({type(err).__name__}: {err})", style="red")


class Guarded:
    """Draws `inner`, or an error line when drawing it raises."""

    def __init__(self, inner: RenderableType, owner: str) -> None:
        self.inner = inner
        self.owner = owner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        try:
            segments = list(console.render(self.inner, options))
        except Exception as err:  # bad input must never crash the app
            log.error(f"{self.owner} draw failed: {err!r}")
            yield error_line(err)
            return
        yield from segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        try:
            return Measurement.get(console, options, self.inner)
        except Exception:
            return Measurement(1, options.max_width)


class SafeStatic(Static):
    def build(self) -> RenderableType:  # overridden
        return ""

    def rebuild(self) -> None:
        try:
            content = self.build()
        except Exception as err:  # bad input must never crash the app
            log.error(f"{type(self).__name__} render failed: {err!r}")
            content = error_line(err)
        if not isinstance(content, (str, Text)):
            content = Guarded(content, type(self).__name__)
        self.update(content)

    def on_mount(self) -> None:
        self.rebuild()

    def plain_text(self) -> str:
        try:
            content = self.build()
        except Exception:
            return ""
        return content.plain if isinstance(content, Text) else str(content)

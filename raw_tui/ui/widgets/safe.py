"""A Static whose content is built by a method that may fail on bad input: the failure is
logged and the widget shows one error line instead of taking the session down."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual import log
from textual.widgets import Static


class SafeStatic(Static):
    def build(self) -> RenderableType:  # overridden
        return ""

    def rebuild(self) -> None:
        try:
            content = self.build()
        except Exception as err:  # bad input must never crash the app
            log.error(f"{type(self).__name__} render failed: {err!r}")
            content = Text(f"⚠ cannot draw this ({type(err).__name__}: {err})", style="red")
        self.update(content)

    def on_mount(self) -> None:
        self.rebuild()

    def plain_text(self) -> str:
        try:
            content = self.build()
        except Exception:
            return ""
        return content.plain if isinstance(content, Text) else str(content)

"""Earlier chat rows (pruned from the live chat) as plain text, in a virtualised log."""

from __future__ import annotations


from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Log, Static

from ..styles import stylesheet
from ..textual_private import ExactScreen



class TranscriptScreen(ExactScreen, ModalScreen[None]):
    CSS_PATH = stylesheet("transcript")
    HELP = "Earlier messages. **Esc** closes."
    BINDINGS = [Binding("escape,q", "close", "Close", id="transcript.close")]

    def __init__(self, texts: list[str]) -> None:
        super().__init__()
        self.texts = texts

    def compose(self) -> ComposeResult:
        yield Static("Earlier items (Esc closes)", id="transcript-title")
        log = Log(id="transcript-log", auto_scroll=False)
        yield log

    def on_mount(self) -> None:
        log = self.query_one(Log)
        for text in self.texts:
            log.write_lines((text or "").split("\n") + [""])
        log.focus()

    def action_close(self) -> None:
        self.dismiss(None)

"""Prompts sent while a turn runs: the session answers `busy`, so they wait here, shown above
the composer as queued, and go out one by one, oldest first, each when the session is idle
again (as Claude Code queues them). Esc takes the newest back into the composer to edit or
drop (a second Esc then cancels the turn)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

SHOWN = 3  # queued prompts listed; more are counted


def _first_line(text: str, width: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


class PromptQueue(Static):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.prompts: list[str] = []
        self.display = False

    def add(self, text: str) -> None:
        self.prompts.append(text)
        self._show()

    def take_last(self) -> str | None:
        """The newest queued prompt, off the queue (Esc)."""
        text = self.prompts.pop() if self.prompts else None
        self._show()
        return text

    def pop_first(self) -> str | None:
        text = self.prompts.pop(0) if self.prompts else None
        self._show()
        return text

    def put_back(self, text: str) -> None:
        """A prompt that could not go out yet stays first."""
        self.prompts.insert(0, text)
        self._show()

    def _show(self) -> None:
        self.display = bool(self.prompts)
        out = Text()
        for index, text in enumerate(self.prompts[:SHOWN]):
            if index:
                out.append("\n")
            out.append("⏸ queued ", style="bold")
            out.append(_first_line(text))
        more = len(self.prompts) - SHOWN
        if more > 0:
            out.append(f"\n  … and {more} more")
        out.append("\n  sent when the turn ends · Esc takes the last back", style="dim italic")
        self.update(out)

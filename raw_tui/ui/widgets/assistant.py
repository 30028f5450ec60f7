"""Assistant text in the chat, streamed as Markdown."""

from __future__ import annotations

from textual.widgets import Markdown


class AssistantMessageView(Markdown):
    """Assistant text. Live deltas go through a MarkdownStream (Markdown.append), so a token
    never re-renders the whole message."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text, classes="chat-item assistant")
        self.text = text
        self._stream = None

    async def write(self, delta: str) -> None:
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        self.text += delta
        await self._stream.write(delta)

    async def finish(self, final: str | None = None) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if final is not None and final != self.text:
            self.text = final
            await self.update(final)

    @property
    def is_streaming(self) -> bool:
        """Deltas are still being written (until `finish`)."""
        return self._stream is not None

    def plain_text(self) -> str:
        return self.text

"""Text for a terminal outside Textual (DECISIONS.md §7): model text, tool output, hook
messages and file contents must not be able to retitle, clear or otherwise drive the user's
terminal. `escape_controls` is the one function that makes text safe; `TerminalStream` applies
it to everything written through a stream (the command line wraps stderr always, and stdout
when a command prints text rather than JSON)."""

from __future__ import annotations

import io
from typing import TextIO

# the C0 controls, DEL, and the C1 controls U+0080..U+009F
_CONTROLS = list(range(0x20)) + list(range(0x7F, 0xA0))
_ALL = {c: f"\\x{c:02x}" for c in _CONTROLS}
_KEEP_LINES = {c: escape for c, escape in _ALL.items() if c not in (0x09, 0x0A)}


def escape_controls(text: str, *, keep_lines: bool = True) -> str:
    """`text` with ESC and every other C0/C1 control shown as `\\x1b`; `\\n` and `\\t` are
    kept unless `keep_lines` is False (a one-line message quoting a key or a name)."""
    return text.translate(_KEEP_LINES if keep_lines else _ALL)


class TerminalStream(io.TextIOBase):
    """A text stream writing through another one, with controls escaped. Everything else
    (fileno, isatty, encoding, flush) is the wrapped stream's."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(escape_controls(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def fileno(self) -> int:
        return self.inner.fileno()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.inner.errors


def terminal_stream(stream: TextIO) -> TextIO:
    """`stream` wrapped (once)."""
    return stream if isinstance(stream, TerminalStream) else TerminalStream(stream)

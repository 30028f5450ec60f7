"""Text for a terminal outside Textual (DECISIONS.md §7): model text, tool output, hook
messages and file contents must not be able to retitle, clear or otherwise drive the user's
terminal. `escape_controls` is the one function that makes text safe; `TerminalStream` applies
it to everything written through a stream (the command line wraps stderr always, and stdout
when a command prints text rather than JSON). JSON output escapes C0 by nature but not DEL
and C1 (U+009B is CSI to xterm): `escape_json_controls` writes those as `\\u00XX`."""

from __future__ import annotations

import io
from typing import TextIO

# the C0 controls, DEL, and the C1 controls U+0080..U+009F
_CONTROLS = list(range(0x20)) + list(range(0x7F, 0xA0))
_ALL = {c: f"\\x{c:02x}" for c in _CONTROLS}
_KEEP_LINES = {c: escape for c, escape in _ALL.items() if c not in (0x09, 0x0A)}
# in JSON text DEL and C1 can only sit inside a string, where `\u00XX` means the same
_JSON_C1 = {c: f"\\u{c:04x}" for c in range(0x7F, 0xA0)}


def escape_controls(text: str, *, keep_lines: bool = True) -> str:
    """`text` with ESC and every other C0/C1 control shown as `\\x1b`; `\\n` and `\\t` are
    kept unless `keep_lines` is False (a one-line message quoting a key or a name)."""
    return text.translate(_KEEP_LINES if keep_lines else _ALL)


def escape_json_controls(text: str) -> str:
    """JSON text with DEL and the C1 controls written as `\\u00XX` escapes: the same JSON."""
    return text.translate(_JSON_C1)


class TerminalStream(io.TextIOBase):
    """A text stream writing through another one, with controls escaped. Everything else
    (fileno, isatty, encoding, flush) is the wrapped stream's."""

    def __init__(self, inner: TextIO, *, json: bool = False) -> None:
        super().__init__()
        self.inner = inner
        self.escape = escape_json_controls if json else escape_controls

    def write(self, text: str) -> int:
        self.inner.write(self.escape(text))
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


def terminal_stream(stream: TextIO, *, json: bool = False) -> TextIO:
    """`stream` wrapped (once); `json`: it carries JSON text (only DEL and C1 escaped)."""
    return stream if isinstance(stream, TerminalStream) else TerminalStream(stream, json=json)

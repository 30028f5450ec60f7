"""Text for a terminal (docs/decisions.md): model text, tool output, hook
messages and file contents must not be able to retitle, clear, write the clipboard of or
otherwise drive the user's terminal, nor reorder what a line reads as. `escape_controls` is
the one function that makes text safe: C0, DEL and C1 controls shown as `\\x1b`, the
bidirectional format characters (U+202A..U+202E, U+2066..U+2069) as `\\u202e`.
`TerminalStream` applies it to everything written through a stream (the command line wraps
stderr always, and stdout when a command prints text rather than JSON); `neutralise` applies
it to every string of a value (an event, a reply), which is how the full-screen UI receives
whatever it draws (raw_tui/ui/neutral.py). JSON output escapes C0 by nature but not DEL, C1
(U+009B is CSI to xterm) and the bidi characters: `escape_json_controls` writes those as
`\\u00XX` / `\\u202e`."""

from __future__ import annotations

import io
from typing import Any, Callable, TextIO

import msgspec

# the C0 controls, DEL, and the C1 controls U+0080..U+009F
_CONTROLS = list(range(0x20)) + list(range(0x7F, 0xA0))
# the bidirectional embeddings, overrides (U+202A..U+202E) and isolates (U+2066..U+2069): a
# line holding one reads in another order than it is written
BIDI = list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))
_ALL = {c: f"\\x{c:02x}" for c in _CONTROLS} | {c: f"\\u{c:04x}" for c in BIDI}
_KEEP_LINES = {c: escape for c, escape in _ALL.items() if c not in (0x09, 0x0A)}
# in JSON text DEL, C1 and the bidi characters can only sit inside a string, where `\u00XX`
# means the same
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in [*range(0x7F, 0xA0), *BIDI]}


def escape_controls(text: str, *, keep_lines: bool = True) -> str:
    """`text` with ESC and every other C0/C1 control shown as `\\x1b` and the bidi format
    characters as `\\u202e`; `\\n` and `\\t` are kept unless `keep_lines` is False (a
    one-line message quoting a key or a name). Text it returned comes back unchanged."""
    if text.isprintable():  # no control, no format character: the common case, at once
        return text
    shown = text.translate(_KEEP_LINES if keep_lines else _ALL)
    return text if shown == text else shown


def escape_json_controls(text: str) -> str:
    """JSON text with DEL, the C1 controls and the bidi characters written as `\\u00XX`
    escapes: the same JSON."""
    return text.translate(_JSON_ESCAPES)


def for_screen(text: str) -> str:
    """A string as a full-screen UI draws it: a CRLF line end is a line end (a terminal shows
    the two as one), every other control escaped as `escape_controls` does."""
    return escape_controls(text.replace("\r\n", "\n"))


def neutralise(value: Any, text: Callable[[str], str] = for_screen) -> Any:
    """`value` with `text` applied to every string in it: the fields of a msgspec Struct (a
    new Struct where one changed), the items of lists and tuples, the keys and values of
    dicts. Anything else (numbers, None, UNSET) is returned as it is; so is a value in which
    nothing changed (the same object)."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, msgspec.Struct):
        changes = {}
        for name in value.__struct_fields__:
            item = getattr(value, name)
            new = neutralise(item, text)
            if new is not item:
                changes[name] = new
        return msgspec.structs.replace(value, **changes) if changes else value
    if isinstance(value, (list, tuple)):
        items = [neutralise(item, text) for item in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        pairs = [(neutralise(k, text), neutralise(v, text)) for k, v in value.items()]
        if all(nk is k and nv is v for (nk, nv), (k, v) in zip(pairs, value.items())):
            return value
        return dict(pairs)
    return value


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

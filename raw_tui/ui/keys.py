"""Reading the keys every terminal sends for a modified Enter (and the other keys of
xterm's modifyOtherKeys form), where Textual's parser reads another key or none.

- ESC CR is Alt+Enter in xterm, VTE, xterm.js (the browser through `serve`), tmux and most
  terminals over SSH; Textual reads it as a plain Enter.
- `CSI 27 ; MOD ; CODE ~` is xterm's modifyOtherKeys form (xterm with the mode on; tmux with
  `extended-keys` on, once an application asked for it). Textual reads Shift+Enter in it as a
  key named `shift+\\r` that nothing binds, Alt+Enter as a bare CR. It means what the kitty
  form `CSI CODE ; MOD u` means, which Textual reads right: it is read as that.
- A bracketed paste is read whole, never as keys (raw_tui/ui/paste.py).

The driver asks the terminal for modifyOtherKeys (mode 1: only the keys that would read as
another key without it) so that xterm and tmux tell Shift+Enter from Enter; a terminal that
does not know the request ignores it.
"""

from __future__ import annotations

import re
from typing import Iterable

from textual import events

from .paste import WholePastes
from .textual_private import SequenceKeys

ALT_ENTER = "\x1b\r"
MODIFY_OTHER_KEYS = re.compile(r"\x1b\[27;(\d+);(\d+)~")  # fixed escape sequences, not user text
MODIFY_OTHER_KEYS_ON = "\x1b[>4;1m"
MODIFY_OTHER_KEYS_OFF = "\x1b[>4;0m"


class KeyParser(WholePastes, SequenceKeys):
    def sequence_keys(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if sequence == ALT_ENTER:
            yield events.Key("alt+enter", None)
            return
        match = MODIFY_OTHER_KEYS.fullmatch(sequence)
        if match is not None:
            modifiers, code = match.groups()
            sequence = f"\x1b[{code};{modifiers}u"
        yield from super().sequence_keys(sequence, alt)


def typed_ahead_events(data: bytes) -> list[events.Event]:
    """The key events of bytes typed before the app's driver read its terminal."""
    parser = KeyParser()
    text = data.decode("utf-8", errors="replace")
    return [*parser.feed(text), *parser.feed("")]

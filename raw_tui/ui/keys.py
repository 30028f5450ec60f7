"""Reading the keys every terminal sends for a modified Enter (and the other keys of
xterm's modifyOtherKeys form), where Textual's parser reads another key or none.

- ESC CR is Alt+Enter in xterm, VTE, xterm.js (the browser through `serve`), tmux and most
  terminals over SSH; Textual reads it as a plain Enter.
- `CSI 27 ; MOD ; CODE ~` is xterm's modifyOtherKeys form (xterm with the mode on; tmux with
  `extended-keys` on, once an application asked for it). Textual reads Shift+Enter in it as a
  key named `shift+\\r` that nothing binds, Alt+Enter as a bare CR. It means what the kitty
  form `CSI CODE ; MOD u` means, which Textual reads right: it is read as that.
- Whatever arrives between `ESC[200~` and `ESC[201~` is one paste, whole: its own ESC bytes,
  a cursor-position report or arrow keys in it, its CR, are text, never keys. (Textual's
  parser reads an escape sequence inside a paste as keys, up to 32 characters of it, and a
  CR in them as Enter: a hostile clipboard could send a prompt past the composer.)

The driver asks the terminal for modifyOtherKeys (mode 1: only the keys that would read as
another key without it) so that xterm and tmux tell Shift+Enter from Enter; a terminal that
does not know the request ignores it.
"""

from __future__ import annotations

import re
from typing import Iterable

from textual import events
from textual._parser import ParseEOF, ParseTimeout
from textual._xterm_parser import BRACKETED_PASTE_END, BRACKETED_PASTE_START, XTermParser

ALT_ENTER = "\x1b\r"
MODIFY_OTHER_KEYS = re.compile(r"\x1b\[27;(\d+);(\d+)~")  # fixed escape sequences, not user text
MODIFY_OTHER_KEYS_ON = "\x1b[>4;1m"
MODIFY_OTHER_KEYS_OFF = "\x1b[>4;0m"


class KeyParser(XTermParser):
    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if sequence == ALT_ENTER:
            yield events.Key("alt+enter", None)
            return
        match = MODIFY_OTHER_KEYS.fullmatch(sequence)
        if match is not None:
            modifiers, code = match.groups()
            sequence = f"\x1b[{code};{modifiers}u"
        yield from super()._sequence_to_key_events(sequence, alt)

    def parse(self, token_callback):
        """Textual's parser for everything but the inside of a bracketed paste, which is
        read here: from the start marker (seen by Textual's parser, which then waits for
        the end) to the end marker, every character is the paste's. The end marker is then
        given to Textual's parser, to end its own (empty) paste, which is not sent."""
        def not_its_pastes(token) -> None:
            if not isinstance(token, events.Paste):
                token_callback(token)

        inner = super().parse(not_its_pastes)
        request = next(inner)
        recent = ""
        while True:
            try:
                character = yield request
            except (ParseTimeout, ParseEOF) as err:
                try:
                    request = inner.throw(err)
                except StopIteration:
                    return
                continue
            try:
                request = inner.send(character)
            except StopIteration:
                return
            recent = (recent + character)[-len(BRACKETED_PASTE_START):]
            if recent != BRACKETED_PASTE_START:
                continue
            recent = ""
            pasted: list[str] = []
            try:
                while not (len(pasted) >= len(BRACKETED_PASTE_END) and "".join(
                        pasted[-len(BRACKETED_PASTE_END):]) == BRACKETED_PASTE_END):
                    pasted.append((yield self.read1()))
            except ParseEOF:  # the terminal went away mid-paste: what came is still text
                token_callback(events.Paste("".join(pasted).replace("\x00", "")))
                try:
                    inner.throw(ParseEOF())
                except StopIteration:
                    pass
                return
            text = "".join(pasted[:-len(BRACKETED_PASTE_END)])
            token_callback(events.Paste(text.replace("\x00", "")))  # as Textual does
            for character in BRACKETED_PASTE_END:
                request = inner.send(character)


def use_key_parser(driver_module) -> None:
    """Textual's drivers build `XTermParser` by its module-level name when their input thread
    starts: `driver_module` builds a KeyParser instead."""
    if getattr(driver_module, "XTermParser", None) is XTermParser:
        driver_module.XTermParser = KeyParser


def typed_ahead_events(data: bytes) -> list[events.Event]:
    """The key events of bytes typed before the app's driver read its terminal."""
    parser = KeyParser()
    text = data.decode("utf-8", errors="replace")
    return [*parser.feed(text), *parser.feed("")]

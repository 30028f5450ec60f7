"""A bracketed paste read whole: whatever arrives between `ESC[200~` and `ESC[201~` is one
paste (docs/security.md), its own ESC bytes, a cursor-position report (`ESC[12;5R`), arrow
keys and CRs in it included. Textual's parser reads an escape sequence inside a paste as keys
(up to 32 characters of it) and a CR there as Enter, so a hostile clipboard could send a
prompt past the composer.

`WholePastes` goes before Textual's parser in a parser class's bases (raw_tui/ui/keys.py):
every character goes to Textual's parser as before, until it has read a paste's start
marker; from there to the end marker the characters are read here, and sent as one Paste;
the end marker then goes to Textual's parser, to end its own (empty) paste, which is not
sent.
"""

from __future__ import annotations

from textual import events

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"


class WholePastes:
    def parse(self, token_callback):
        def not_its_pastes(token) -> None:
            if not isinstance(token, events.Paste):
                token_callback(token)

        inner = super().parse(not_its_pastes)  # type: ignore[misc]
        request = next(inner)
        recent = ""
        while True:
            try:
                character = yield request
            except GeneratorExit:
                inner.close()
                raise
            except Exception as err:  # a timeout, the end of input: Textual's to handle
                try:
                    request = inner.throw(err)
                except StopIteration:
                    return
                continue
            try:
                request = inner.send(character)
            except StopIteration:
                return
            recent = (recent + character)[-len(PASTE_START):]
            if recent != PASTE_START:
                continue
            recent = ""
            pasted: list[str] = []
            try:
                while len(pasted) < len(PASTE_END) or \
                        "".join(pasted[-len(PASTE_END):]) != PASTE_END:
                    pasted.append((yield self.read1()))  # type: ignore[attr-defined]
            except GeneratorExit:
                inner.close()
                raise
            except Exception as err:  # the end of input mid-paste: what came is still text
                token_callback(_paste("".join(pasted)))
                try:
                    inner.throw(err)
                except StopIteration:
                    pass
                return
            token_callback(_paste("".join(pasted[:-len(PASTE_END)])))
            for character in PASTE_END:
                request = inner.send(character)


def _paste(text: str) -> events.Paste:
    return events.Paste(text.replace("\x00", ""))  # NUL dropped, as Textual does

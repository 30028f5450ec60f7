"""raw-tui's key parser (raw_tui/ui/keys.py, raw_tui/ui/paste.py) on a bracketed paste:
everything between the markers is one Paste, whole, however the terminal's bytes are split
into reads; keys around it are keys."""

from __future__ import annotations

import pytest
from textual import events

from raw_tui.ui.keys import KeyParser, typed_ahead_events

INSIDE = "a \x1b[12;5R b \x1b[A c\rd \x1b\x1b e \x1b[200~ f \x1b"  # ESCs, a CR, a nested start


def _read(chunks: list[str]) -> list[events.Event]:
    parser = KeyParser()
    out: list[events.Event] = []
    for chunk in chunks:
        out += parser.feed(chunk)
    return out + list(parser.feed(""))


def _shown(found: list[events.Event]) -> list[str]:
    return [f"paste:{e.text}" if isinstance(e, events.Paste) else e.key for e in found]


@pytest.mark.parametrize("size", [1, 2, 5, 7, 1000])
def test_a_paste_is_one_paste_whatever_it_holds_and_however_it_is_read(size):
    data = "x\x1b[200~" + INSIDE + "\x1b[201~y\x1b[A"
    chunks = [data[i:i + size] for i in range(0, len(data), size)]
    assert _shown(_read(chunks)) == ["x", f"paste:{INSIDE}", "y", "up"]


def test_nul_is_dropped_and_a_paste_cut_short_by_the_end_of_input_is_still_text():
    assert _shown(_read(["\x1b[200~a\x00b\x1b[201~"])) == ["paste:ab"]
    assert _shown(typed_ahead_events(b"\x1b[200~half \x1b[A\r")) == ["paste:half \x1b[A\r"]


def test_escape_alone_is_still_escape_and_an_esc_ending_a_read_inside_a_paste_waits():
    """Escape is told from a sequence by a pause (Textual's escape delay); inside a paste a
    pause is no key: the paste goes on until its end marker."""
    import time

    from textual import constants

    parser = KeyParser()
    assert list(parser.feed("\x1b")) == []
    time.sleep(constants.ESCAPE_DELAY + 0.1)
    assert _shown(list(parser.tick())) == ["escape"]
    assert list(parser.feed("\x1b[200~x\x1b")) == []
    time.sleep(constants.ESCAPE_DELAY + 0.1)
    assert list(parser.tick()) == []
    assert _shown(list(parser.feed("[A\x1b[201~"))) == ["paste:x\x1b[A"]

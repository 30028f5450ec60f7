"""Adversarial: the modal's diff shows every character that changes how a line reads."""

from __future__ import annotations

import pytest

from raw_tui.ui.preview import visible


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u2069", "\u200f", "\u061c"])
def test_bidi_controls_are_shown_escaped(char):
    """`+echo safe # \u202e ; rm -rf ~` reads reversed in a bidi terminal: the approved line
    would not be the line written (Trojan Source)."""
    shown = visible(f"+echo safe {char}; rm -rf ~\n")
    assert char not in shown and f"\\u{ord(char):04x}" in shown

"""Reading what the app shows."""

from __future__ import annotations


def screen_text(app) -> str:
    """The text on the terminal right now (the active screen, modal included)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


def flat(text: str) -> str:
    return " ".join(text.split())

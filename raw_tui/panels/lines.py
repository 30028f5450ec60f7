"""The only panel text the model reads (docs/panels.md).

A rejection echoes what the tool sent (a panel id, a field name): `bounded` keeps it one line
and short, since these lines are added after the output cap."""

from __future__ import annotations

MAX_LINE_PANEL = 100  # characters of the panel id echoed in a line or receipt
MAX_LINE_MESSAGE = 500  # characters of a rejection's message


def bounded(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, control and other unprintable characters escaped
    (`\\x0a`), so it stays one line."""
    if not text[: limit + 1].isprintable():
        text = "".join(ch if ch.isprintable() else
                       (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
                       for ch in text[: limit + 1])
    return text if len(text) <= limit else text[: limit - 1] + "…"


def confirmation_line(panel_id: str, revision: int, summary: str) -> str:
    return f"panel {panel_id} updated (revision {revision}): {summary}"


def rejection_line(panel_id: str, code: str, message: str) -> str:
    return (f"panel {bounded(panel_id, MAX_LINE_PANEL)} update rejected: {code} "
            f"{bounded(message, MAX_LINE_MESSAGE)}")

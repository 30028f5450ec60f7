"""The only panel text the model reads (DECISIONS.md §5)."""

from __future__ import annotations


def confirmation_line(panel_id: str, revision: int, summary: str) -> str:
    return f"panel {panel_id} updated (revision {revision}): {summary}"


def rejection_line(panel_id: str, code: str, message: str) -> str:
    return f"panel {panel_id} update rejected: {code} {message}"

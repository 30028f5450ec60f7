"""Interaction errors (DECISIONS.md §6)."""

from __future__ import annotations

from ..errors import RawError


class InteractionError(RawError):
    """`interaction_invalid`, `interaction_unavailable` or `interaction_conflict`."""

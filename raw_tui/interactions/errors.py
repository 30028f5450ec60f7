"""Interaction errors (docs/interactions.md)."""

from __future__ import annotations

from ..protocol.errors import RawError


class InteractionError(RawError):
    """`interaction_invalid`, `interaction_unavailable` or `interaction_conflict`."""

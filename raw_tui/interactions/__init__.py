"""Interaction requests (docs/interactions.md): forms a tool asks the user to answer."""

from .answers import validate_answers
from .broker import (DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, CallInteractions, Interactions)
from .errors import InteractionError
from .surface import Ack, InteractionSurface, InteractionView

__all__ = ["Ack", "CallInteractions", "DEFAULT_TIMEOUT_MS", "InteractionError",
           "InteractionSurface", "InteractionView", "Interactions", "MAX_TIMEOUT_MS",
           "validate_answers"]

"""Agent sessions: the turn loop, saved history, compaction, the headless run."""

from .open import open_session

__all__ = ["open_session"]

"""Agent sessions: the turn loop, saved history, compaction, the headless run. What opening
one needs is a `SessionRequest` (request.py), importable without the session itself (the
command line builds one before anything else loads)."""

from ..lazy import lazy_exports

__all__ = ["open_session", "SessionRequest"]
__getattr__ = lazy_exports(__name__, {"open_session": "open", "SessionRequest": "request"})

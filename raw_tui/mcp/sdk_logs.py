"""The `mcp` SDK's log records, routed to a file and redacted (the SDK logs what a server
sent when it cannot parse it: raw_tui.mcp.connection).

Imports no `mcp` SDK module: the records come through `logging`.
"""

from __future__ import annotations

import logging
import weakref
from pathlib import Path

from ..protocol.redact import Redactor


def route_sdk_logs(log_file: Path, redactor: Redactor) -> None:
    """The SDK logs through `logging` (parse errors with tracebacks, quoting what a server
    sent): to the log file, never to the terminal, each record redacted."""
    logger = logging.getLogger("mcp")
    logger.propagate = False
    handler = next((h for h in logger.handlers if isinstance(h.formatter, _RedactingFormatter)),
                   None)
    if handler is None:
        handler = logging.FileHandler(log_file, encoding="utf-8", delay=True)
        handler.setFormatter(_RedactingFormatter(
            "%(asctime)s %(name)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    handler.formatter.redactors.add(redactor)  # type: ignore[union-attr]


class _RedactingFormatter(logging.Formatter):
    """A log record's whole text (message, arguments, traceback) with the secrets of every
    live configuration's redactor replaced (the SDK's logger is one per process)."""

    def __init__(self, fmt: str) -> None:
        super().__init__(fmt)
        self.redactors: weakref.WeakSet[Redactor] = weakref.WeakSet()

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for redactor in list(self.redactors):
            text = redactor.text(text)
        return text

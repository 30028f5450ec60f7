"""`ctx.output(text)`: a running tool's output as it arrives, published as `tool_output`
events (raw-tui's own; docs/decisions.md, "Built-in tools").

Bounded however fast a tool writes: text is coalesced into at most one event per call every
`INTERVAL_S`, and one event carries at most `MAX_EVENT_BYTES` (the tail of what arrived; the
bytes left out are counted in `cut`). A secret cut across two pieces is still redacted (the
bus's stream redactor holds back a possible start of one). `close()` sends what is pending
at once: the engine closes it before the call's `tool_result`, so no output event of a call
follows its result. Writes after that are ignored. `write` may be called from a worker
thread (a plain handler); it hands the text to the event loop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable

INTERVAL_S = 0.1  # at most 10 events a second per call
MAX_EVENT_BYTES = 4096


def tail_bytes(text: str, limit: int) -> tuple[str, int]:
    """The end of `text` within `limit` UTF-8 bytes, and how many bytes were left out."""
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= limit:
        return text, 0
    kept = data[len(data) - limit:].decode("utf-8", errors="ignore")
    return kept, len(data) - len(kept.encode("utf-8", errors="surrogatepass"))


class LiveOutput:
    def __init__(self, publish: Callable[[str, int], None], redact_stream=None) -> None:
        """`publish(text, cut)` sends one event; `redact_stream` is a
        `redact.StreamRedactor` (or None)."""
        self._publish = publish
        self._redact = redact_stream
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._pending: list[str] = []
        self._last = 0.0  # when the last event went out (monotonic)
        self._timer: asyncio.TimerHandle | None = None
        self.closed = False
        self.events = 0  # how many went out (tests, benchmarks)

    def __call__(self, text: str) -> None:
        self.write(text)

    def write(self, text: str) -> None:
        if threading.get_ident() != self._thread:
            self._loop.call_soon_threadsafe(self.write, text)
            return
        if self.closed or not text:
            return
        self._pending.append(text)
        if self._timer is None:
            wait = self._last + INTERVAL_S - time.monotonic()
            if wait <= 0:
                self._send()
            else:
                self._timer = self._loop.call_later(wait, self._send)

    def close(self) -> None:
        """Send what is pending (and what the redactor held back) now; ignore later writes."""
        if self.closed:
            return
        self._send(final=True)
        self.closed = True

    def _send(self, final: bool = False) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        text, self._pending = "".join(self._pending), []
        if self._redact is not None:
            text = self._redact.feed(text) + (self._redact.flush() if final else "")
        if not text:
            return
        text, cut = tail_bytes(text, MAX_EVENT_BYTES)
        self._last = time.monotonic()
        self.events += 1
        self._publish(text, cut)

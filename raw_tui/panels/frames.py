"""Live `panel_state` frames: at most one per panel per interval, the latest state wins, and
a final frame when the call closes. Receipts are not coalesced (the host publishes those)."""

from __future__ import annotations

import asyncio
from typing import Callable

from ..protocol.bus import Bus, PanelState
from ..frozen import freeze


class Frames:
    def __init__(self, bus: Bus, interval: float, clock: Callable[[], float]) -> None:
        self._bus = bus
        self._interval = interval
        self._clock = clock
        self._last: dict[str, float] = {}
        self._pending: dict[str, PanelState] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def push(self, state: PanelState) -> None:
        """Publish now when the panel's last frame is old enough, else hold the latest state
        until its turn comes."""
        key = state.panel
        now = self._clock()
        last = self._last.get(key)
        if key not in self._pending and (last is None or now - last >= self._interval):
            self._send(state)
            return
        self._pending[key] = state
        if key in self._timers:
            return
        delay = self._interval - (now - last) if last is not None else 0.0
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the frame goes out with flush()
        self._timers[key] = loop.call_later(max(delay, 0.0), self._fire, key)

    def flush(self, keys: set[str] | None = None) -> None:
        """Send the held frame of each panel in `keys` (all when None) right away."""
        for key in list(self._pending if keys is None else keys):
            timer = self._timers.pop(key, None)
            if timer is not None:
                timer.cancel()
            state = self._pending.pop(key, None)
            if state is not None:
                self._send(state)

    def forget(self, key: str) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self._pending.pop(key, None)
        self._last.pop(key, None)

    def _fire(self, key: str) -> None:
        self._timers.pop(key, None)
        state = self._pending.pop(key, None)
        if state is not None:
            self._send(state)

    def _send(self, state: PanelState) -> None:
        self._last[state.panel] = self._clock()
        if state.document is not None:
            state.document = freeze(state.document)
        self._bus.publish(state)

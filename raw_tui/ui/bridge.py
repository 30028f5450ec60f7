"""The bridge between a session and the screen: the transport calls `EventBridge.deliver`
with every event; the bridge posts it (`messages.EngineEvent`) on the main screen's queue,
so events are drawn in order. Until the session is open, live events wait: the saved
history is posted first, then what was published meanwhile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .messages import EngineEvent, ReplayFinished, ReplayStarted

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from ..protocol import bus as ev


class EventBridge:
    """Turns events into messages on `target`'s queue; holds live events until `release`."""

    def __init__(self) -> None:
        self.target: MessagePump | None = None
        self._held: list[ev.Event] | None = []
        self.closed = False

    def deliver(self, event: ev.Event) -> None:
        """The transport's callback (on the app's event loop)."""
        if self.closed:
            return
        if self._held is not None or self.target is None:
            if self._held is None:
                self._held = []
            self._held.append(event)
            return
        self.target.post_message(EngineEvent(event))

    def release(self, target: MessagePump, replay: list[ev.AnyEvent]) -> None:
        """Draw the saved history on `target`, then what was held, then go live."""
        self.target = target
        target.post_message(EngineEvent(ReplayStarted(), live=False))
        for event in replay:
            target.post_message(EngineEvent(event, live=False))
        target.post_message(EngineEvent(ReplayFinished(), live=False))
        held, self._held = self._held or [], None
        for event in held:
            target.post_message(EngineEvent(event))

    def close(self) -> None:
        """The app is exiting: events still coming are not drawn."""
        self.closed = True

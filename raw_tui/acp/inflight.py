"""The requests an ACP agent is answering (raw_tui.acp.agent): `close()` waits for them."""

from __future__ import annotations

import asyncio
import functools


def in_flight(method):
    """Keep the task answering a request in `inflight` while the method runs."""

    @functools.wraps(method)
    async def tracked(self, *args, **kwargs):
        task = asyncio.current_task()
        self.inflight.add(task)
        try:
            return await method(self, *args, **kwargs)
        finally:
            task.add_done_callback(self.inflight.discard)

    return tracked

"""Approval over the bus: the dispatcher publishes `approval_request`; a UI answers with an
`ApprovalAnswer` command, which resolves the Future waiting here."""

from __future__ import annotations

import asyncio

from ..protocol.bus import ApprovalRequest


class BusApprover:
    def __init__(self) -> None:
        self._pending: dict[str, asyncio.Future[bool]] = {}

    async def approve(self, request: ApprovalRequest) -> bool:
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending[request.call_id] = future
        try:
            return await future
        finally:
            self._pending.pop(request.call_id, None)

    def answer(self, call_id: str, allow: bool) -> bool:
        future = self._pending.get(call_id)
        if future is None or future.done():
            return False
        future.set_result(allow)
        return True

    @property
    def pending(self) -> list[str]:
        return list(self._pending)

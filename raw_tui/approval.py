"""Approval: the engine asks, an `Approver` answers (the UI with a modal, `call --approve`).

The approver gets the `approval_request` event the dispatcher publishes (`bus.ApprovalRequest`,
the one type for an asked call). No approver (a headless run) means an `ask` rule stops the
call with `approval_required`.
"""

from __future__ import annotations

from typing import Protocol

from .protocol.bus import ApprovalRequest


class Approver(Protocol):
    async def approve(self, request: ApprovalRequest) -> bool:
        """True allows this one call; False denies it. Raising gives `approval_error`."""
        ...


class FixedApprover:
    """Answers every request the same way (`raw-tui call --approve yes|no`)."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow
        self.requests: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> bool:
        self.requests.append(request)
        return self.allow

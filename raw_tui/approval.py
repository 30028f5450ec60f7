"""Approval: the engine asks, an `Approver` answers (the UI with a modal, `call --approve`).

No approver (a headless run) means an `ask` rule stops the call with `approval_required`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ApprovalRequest:
    identity: str
    name: str
    arguments: Any  # the original, frozen arguments
    effects: Any  # the frozen intended effects, or None
    tool_call_id: str
    signal: asyncio.Event = field(default_factory=asyncio.Event)  # set when the call is cancelled
    rule: int | None = None  # index in tools.rules of the rule that asked
    source: str = "model"
    preview: Any = None  # the bus.ApprovalPreview also carried on the approval_request event


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

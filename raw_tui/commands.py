"""Commands a UI sends to a session: msgspec Structs, so they can cross a socket later.

Events go out on the bus; commands come in through `Session.handle(command)`, which returns
a `Reply`. Nothing here imports the UI or the engine internals.
"""

from __future__ import annotations

from typing import Any, Protocol, Union

import msgspec


class Command(msgspec.Struct, tag_field="type", omit_defaults=True, kw_only=True):
    pass


class Prompt(Command, tag="prompt"):
    """Start a turn with this text (or run `/compact`, `/clear`)."""

    text: str


class Cancel(Command, tag="cancel"):
    """Cancel the running turn (Esc in the UI, SIGINT headless)."""


class ApprovalAnswer(Command, tag="approval_answer"):
    call_id: str
    allow: bool


class FormAnswer(Command, tag="form_answer"):
    request_id: str
    answers: dict[str, Any]
    idempotency_key: str | None = None


class FormCancel(Command, tag="form_cancel"):
    request_id: str


class PanelAction(Command, tag="panel_action"):
    panel: str  # full id OWNER#ID
    action: str  # action id
    block: str | None = None
    item: str | None = None


class Compact(Command, tag="compact"):
    pass


class Clear(Command, tag="clear"):
    pass


class Quit(Command, tag="quit"):
    """Close the session cleanly (SessionEnd runs)."""


AnyCommand = Union[Prompt, Cancel, ApprovalAnswer, FormAnswer, FormCancel, PanelAction, Compact,
                   Clear, Quit]


class Reply(msgspec.Struct, omit_defaults=True):
    ok: bool = True
    code: str | None = None
    message: str | None = None
    draft: str | None = None  # a prompt action's text for the composer
    send: bool = False  # the prompt action asks to send the draft at once


class SessionInfo(msgspec.Struct, omit_defaults=True):
    """What a UI shows in its status line and title."""

    session_id: str
    agent: str
    model: str
    max_steps: int
    cwd: str


class SessionApi(Protocol):
    """What a UI needs from a session: the bus, a description, and `handle`."""

    bus: Any
    info: SessionInfo

    async def handle(self, command: Command) -> Reply: ...

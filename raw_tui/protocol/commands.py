"""The session facade: the commands a client sends to a session, the answers it gets, and
`SessionApi`, what a session offers its clients. All msgspec Structs, so they cross a socket.

Events go out on the bus; commands come in through `SessionApi.handle(command)`, which
returns a `Reply`. Clients reach a session through a transport (`raw_tui.protocol.client`). Nothing
here imports a client or the engine internals.
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


class Retry(Command, tag="retry"):
    """Run the last prompt again; its turn leaves the model's context (a `turn_rewind`)."""


class EditPrompt(Command, tag="edit_prompt"):
    """Send `text` in place of the prompt of `turn_id`: that turn and every later one leave
    the model's context (a `turn_rewind`), then `text` starts a new turn."""

    turn_id: str
    text: str


class SwitchModel(Command, tag="switch_model"):
    """Run the next turns on the model `model` (an alias of the config's `models`)."""

    model: str


class SwitchAgent(Command, tag="switch_agent"):
    """Run the next turns as the agent `agent` (its tools, rules, hooks and model)."""

    agent: str


class Undo(Command, tag="undo"):
    """Restore the files to their state before a turn: `turn_id`, or `turn` (its number,
    counted from 1), else the latest turn that changed files (docs/checkpoints.md).
    `dry_run`: the Reply's `report` says what it would do (with each file's `diff`),
    nothing changes. `overwrite`: conflicts are restored too."""

    turn_id: str | None = None
    turn: int | None = None
    dry_run: bool = False
    overwrite: bool = False


class Quit(Command, tag="quit"):
    """Close the session cleanly (SessionEnd runs)."""


AnyCommand = Union[Prompt, Cancel, ApprovalAnswer, FormAnswer, FormCancel, PanelAction, Compact,
                   Clear, Retry, EditPrompt, SwitchModel, SwitchAgent, Undo, Quit]


class Reply(msgspec.Struct, omit_defaults=True):
    ok: bool = True
    code: str | None = None
    message: str | None = None
    draft: str | None = None  # a prompt action's text for the composer
    send: bool = False  # the prompt action asks to send the draft at once
    # Undo: {files: [{path, action, diff?}], unobserved_turns, turn, notes?, message?}
    report: dict[str, Any] | None = None


class SessionInfo(msgspec.Struct, omit_defaults=True):
    """What a UI shows in its status line and title."""

    session_id: str
    agent: str
    model: str
    max_steps: int
    cwd: str
    agents: list[str] = []  # the agents and model aliases the config offers to switch to
    models: list[str] = []
    sandbox: str = ""  # bash's sandbox: `sandbox: overlay · net off`, `sandbox off: REASON`


class UiSettings(msgspec.Struct, frozen=True, omit_defaults=True):
    """The `ui` section of raw.json, as a client receives it: a keymap (binding id → keys)
    and switches, off by default so an idle SSH link carries nothing."""

    keymap: dict[str, str] = {}
    cursor_blink: bool = False
    animations: bool = False
    max_chat_items: int = 100  # chat rows kept on screen; older ones stay readable (Ctrl+O)
    max_fps: float = 60  # frames a second the terminal is written at most


class SavedSession(msgspec.Struct, frozen=True):
    """One saved session a client may offer to resume."""

    id: str
    title: str
    updated_at: float
    events: int
    cwd: str = ""  # the directory it ran in (the palette lists every directory's sessions)


class SessionApi(Protocol):
    """What a session offers its clients (the transport's engine side): the bus its events
    are published on, a description, one `handle` per command, and the rest of the facade."""

    bus: Any
    info: SessionInfo

    async def open(self, *, watch: bool = False) -> None: ...

    async def handle(self, command: Command) -> Reply: ...

    def saved_sessions(self) -> list[SavedSession]: ...

    def ui_settings(self) -> UiSettings: ...

    async def close(self) -> None: ...

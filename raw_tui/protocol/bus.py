"""The event vocabulary (docs/sessions.md) and the async event bus.

One vocabulary for the bus, the saved history and `run --output jsonl`. Every event is a
msgspec Struct tagged by `type`; `encode(event)` gives one JSON object in one call.
Events that the contract does not list (docs/sessions.md) (`panel_state`, `hooks_reload`, `turn_state`, `compaction`,
`notice`, `usage`, `tool_output`, `turn_rewind`, `agent_model`) are raw-tui's own additions,
documented in docs/decisions.md ("The event stream", "Features users expect").
"""

from __future__ import annotations

from functools import cache
from typing import Any, Callable, Literal, Union

import msgspec

from .redact import Redactor

_UNSET = msgspec.UNSET


def given(**fields: Any) -> dict[str, Any]:
    """The event's fields passed by name, without those it left out (`msgspec.UNSET`): what
    a payload carries on; `.get(name)` reads a field left out as None."""
    return {name: value for name, value in fields.items() if value is not _UNSET}


class Event(msgspec.Struct, tag_field="type", omit_defaults=True, kw_only=True):
    turn_id: str | msgspec.UnsetType = _UNSET


class SessionStart(Event, tag="session_start"):
    session_id: str
    agent: str


class HookEvent(Event, tag="hook_event"):
    id: str
    event: str
    outcome: Literal["continued", "denied", "error"]
    duration_ms: int
    message: str | msgspec.UnsetType = _UNSET
    code: str | msgspec.UnsetType = _UNSET


class UserMessage(Event, tag="user_message"):
    text: str
    # raw-tui: notes the model reads with this message (after a panel tool action)
    notes: list[str] | msgspec.UnsetType = _UNSET


class AssistantDelta(Event, tag="assistant_delta"):
    text: str


class AssistantText(Event, tag="assistant_text"):
    text: str


class ToolCall(Event, tag="tool_call"):
    call_id: str
    identity: str
    name: str
    arguments: Any
    effects: Any | msgspec.UnsetType = _UNSET
    # what the call would change, when a client asked for every call's preview (ACP)
    preview: ApprovalPreview | msgspec.UnsetType = _UNSET
    # raw-tui: the policy's verdict (step 4) and the index in tools.rules of the rule that
    # gave it; absent when the call stopped before the policy step
    policy: Literal["allow", "ask"] | msgspec.UnsetType = _UNSET
    rule: int | msgspec.UnsetType = _UNSET
    # raw-tui: what the call does, in one line (`write_file note.txt`, `bash: ls -la`),
    # computed by the engine (tools/summary.py); a client shows it, the arguments on request
    summary: str | msgspec.UnsetType = _UNSET


class FilePreview(msgspec.Struct, omit_defaults=True):
    """One file of an approval preview: what the call would leave there. `before`/`after` are
    the whole texts when both are small enough to carry (else None; "" for a file that does not
    exist before or after), `diff` a unified diff (bounded), `note` one line `no preview: ...`
    when it cannot be computed, `symlinks` the prefixes of `path` that are symbolic links,
    `before_sha256` the SHA-256 (hex) of the file's bytes as the preview found them ("" when
    there was no file or none could be read): what stands for a content the preview does not
    show (a note), so that a change of the same size is seen between approval and write."""

    path: str
    operation: str
    before: str | None = None
    after: str | None = None
    diff: str = ""
    note: str = ""
    symlinks: list[str] = []
    before_sha256: str = ""


class ApprovalPreview(msgspec.Struct):
    """What a call would change, computed by the engine (the tool's own `preview`) before it
    asks; clients draw it and never read the user's files."""

    files: list[FilePreview]


class ObservedFile(msgspec.Struct):
    path: str
    operation: Literal["write", "delete"]
    kind: Literal["file", "dir", "symlink"]


class Observed(msgspec.Struct, omit_defaults=True):
    """What a sandboxed command actually changed in its layer (docs/sandbox.md): the files,
    the paths written outside the workspace and thrown away, a bounded diff, the layer's
    bytes; and about its dry run: its output, whether it worked in the layer (`previewed`:
    False when it failed — approving then runs the command for real in mode `workspace`),
    whether it had the network."""

    files: list[ObservedFile]
    discarded: list[str]
    diff: str
    bytes: int
    output: str = ""
    previewed: bool = True
    network: bool = False


class ApprovalRequest(Event, tag="approval_request"):
    call_id: str
    identity: str
    name: str
    arguments: Any
    effects: Any | msgspec.UnsetType = _UNSET
    rule: int | msgspec.UnsetType = _UNSET  # index of the rule in tools.rules that asked
    preview: ApprovalPreview | msgspec.UnsetType = _UNSET  # raw-tui: see FilePreview
    # raw-tui: a sandboxed bash call's dry run (docs/sandbox.md); why it asks when no rule
    # did (`protected_path`: its effects touch the gate's own files); the sandbox off: why
    observed: Observed | msgspec.UnsetType = _UNSET
    reason: str | msgspec.UnsetType = _UNSET
    sandbox: str | msgspec.UnsetType = _UNSET


class ApprovalDecision(Event, tag="approval_decision"):
    call_id: str
    allow: bool


class ToolResultEvent(Event, tag="tool_result"):
    call_id: str
    isError: bool
    content: list[Any]
    code: str | msgspec.UnsetType = _UNSET
    truncated: bool | msgspec.UnsetType = _UNSET


class ToolProgress(Event, tag="tool_progress"):
    """A running tool's progress (an MCP server's progress notification)."""

    call_id: str
    progress: float
    total: float | msgspec.UnsetType = _UNSET
    message: str | msgspec.UnsetType = _UNSET


class ToolOutput(Event, tag="tool_output"):
    """raw-tui: a running tool's output as it arrives (bash streams its commands' output).
    `text` is what arrived since the previous `tool_output` of the call, coalesced: at most
    one event per call every 100 ms, `text` at most 4 KiB (its tail; `cut` counts the bytes
    left out before it). Live only: not stored in the history; the call's `tool_result`
    still holds the (capped) output the model reads."""

    call_id: str
    text: str
    cut: int = 0


class ReceiptError(msgspec.Struct):
    code: str
    message: str


class PanelReceipt(Event, tag="panel_receipt"):
    panel: str
    owner: str
    title: str
    revision: int
    summary: str
    op: str
    source: str
    error: ReceiptError | msgspec.UnsetType = _UNSET


class InteractionRequest(Event, tag="interaction_request"):
    request_id: str
    panel: str


class InteractionSettled(Event, tag="interaction_settled"):
    request_id: str
    status: str
    # raw-tui: the answers of an answered request (as the tool got them), so that a form
    # drawn again from the history (a resumed session, an attach) shows what was answered
    answers: dict[str, Any] | msgspec.UnsetType = _UNSET


class RunEnd(Event, tag="run_end"):
    status: Literal["completed", "error", "cancelled", "max_steps"]
    code: str | msgspec.UnsetType = _UNSET
    message: str | msgspec.UnsetType = _UNSET


# raw-tui additions ------------------------------------------------------------------

class PanelState(Event, tag="panel_state"):
    """The whole state of one panel after an accepted update: what a UI draws and what a
    resumed session restores. `document` is None once the panel is closed."""

    panel: str  # full id OWNER#ID
    owner: str
    revision: int
    placement: str
    document: Any
    title: str | msgspec.UnsetType = _UNSET  # the declaration's title
    icon: str | msgspec.UnsetType = _UNSET
    actions: list[Any] | msgspec.UnsetType = _UNSET  # the declaration's actions
    # the call whose update made this state: a chat panel written by another call is drawn
    # anew where that call is (docs/decisions.md)
    call_id: str | msgspec.UnsetType = _UNSET


class HooksReload(Event, tag="hooks_reload"):
    ok: bool
    message: str


class TurnState(Event, tag="turn_state"):
    """The session's state for a status line: idle, running, cancelling, closing; and the
    step of the running turn."""

    state: Literal["idle", "running", "cancelling", "closing"]
    step: int = 0
    max_steps: int = 0


class Compaction(Event, tag="compaction"):
    """Older turns were summarised: the model's context is now the summary, then the turns
    listed in `kept_turns` (and the panel reminder, when there is one)."""

    summary: str
    kept_turns: list[str]
    reminder: str | msgspec.UnsetType = _UNSET


class TokenUsage(Event, tag="usage"):
    """What one model request cost, as the provider reported it (none for the scripted
    model): `input_tokens` is the context the model saw; `context_window_tokens` is the
    model entry's window when the config names one."""

    input_tokens: int
    output_tokens: int
    context_window_tokens: int | msgspec.UnsetType = _UNSET


class TurnRewind(Event, tag="turn_rewind"):
    """A retry or an edited prompt: the model's context loses `from_turn` and every turn
    after it (they stay in the saved history, before this event); the turn this event
    belongs to takes their place. `reason`: `retry` (the same prompt again) or `edit`."""

    from_turn: str
    reason: Literal["retry", "edit"]


class AgentModel(Event, tag="agent_model"):
    """The agent or the model was switched (the command palette): turns from now on run
    with them. A resumed session starts with the last one saved."""

    agent: str
    model: str


class ChangedFile(msgspec.Struct):
    path: str
    operation: Literal["write", "delete"]


class FileChanges(Event, tag="file_changes"):
    """raw-tui committed a change to the user's files (a write_file call, a bash layer);
    `checkpoint` names the recorded previous state (docs/checkpoints.md), null when the
    session keeps no checkpoints (`raw-tui call`)."""

    call_id: str
    files: list[ChangedFile]
    checkpoint: str | None  # always written


class UndoneFile(msgspec.Struct):
    path: str
    action: Literal["restored", "removed", "conflict"]


class TurnUndo(Event, tag="undo"):
    """An undo of turn `turn_id` and every later one (docs/checkpoints.md); a conflict was
    left as it was."""

    files: list[UndoneFile]


class Notice(Event, tag="notice"):
    level: Literal["info", "warning", "error"]
    message: str


AnyEvent = Union[
    SessionStart, HookEvent, UserMessage, AssistantDelta, AssistantText, ToolCall,
    ApprovalRequest, ApprovalDecision, ToolResultEvent, ToolProgress, ToolOutput, PanelReceipt,
    InteractionRequest, InteractionSettled, RunEnd, PanelState, HooksReload, TurnState,
    Compaction, Notice, TokenUsage, TurnRewind, AgentModel, FileChanges, TurnUndo,
]

_encoder = msgspec.json.Encoder()


@cache
def _decoder() -> msgspec.json.Decoder:
    """Built on first use: its type analysis of every event is ~10 ms, a good part of the
    UI's start-up, and the in-process UI never decodes."""
    return msgspec.json.Decoder(AnyEvent)


def encode(event: Event) -> bytes:
    """One event as one JSON object (no newline)."""
    return _encoder.encode(event)


def decode(data: bytes | str) -> Event:
    return _decoder().decode(data)


def to_builtins(event: Event) -> dict[str, Any]:
    return msgspec.to_builtins(event)


Subscriber = Callable[[Event], None]


class Bus:
    """Publish/subscribe. `publish` never blocks: subscribers are called in order (the
    history store writes here, so nothing published is lost)."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        self.redactor = redactor or Redactor()  # applied to every event published
        self._subscribers: list[Subscriber] = []
        self._reported: set[int] = set()

    def subscribe(self, fn: Subscriber, *, first: bool = False) -> Callable[[], None]:
        """Call `fn` with every event. `first` puts it before every other subscriber (the
        history store: an event is saved before anyone shows it)."""
        if first:
            self._subscribers.insert(0, fn)
        else:
            self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn) if fn in self._subscribers else None

    def publish(self, event: Event) -> None:
        """Give `event` to every subscriber. A subscriber that raises (a full disk under the
        history store, a bug in a view) never stops the others or the publisher: its first
        failure is published as an error `notice`. Every secret the bus's redactor knows is
        taken out first: no subscriber ever sees one."""
        event = self.redactor.struct(event)
        failed = []
        for fn in list(self._subscribers):
            try:
                fn(event)
            except Exception as err:  # noqa: BLE001 — reported below, once per subscriber
                failed.append((fn, err))
        for fn, err in failed:
            if id(fn) not in self._reported:
                self._reported.add(id(fn))
                name = getattr(fn, "__qualname__", type(fn).__name__)
                self.publish(Notice(level="error", message=f"{name} failed on "
                                    f"{type(event).__struct_config__.tag}: {err}"))

"""The bridge between a session and the screen: one Textual `Message` type per engine event.

The bridge (bridge.py) posts each event's message on the main screen's queue (so events are
drawn in order), where the widget that draws it handles it: the saved history first
(`live=False`, between `ReplayStarted` and `ReplayFinished`), then what was published
meanwhile. An event type without a message here becomes `UndrawnEvent`, which the screen
writes to the debug log: never silently lost. This module is imported when the first events
are drawn, not before the first frame (its two dozen classes are a measurable share of it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from .. import bus as events


@dataclass
class EngineEvent(Message, bubble=False):
    """One engine event; `live` is False while a saved history is being drawn. Handled by
    the main screen, where it is posted; it does not bubble to the app."""

    event: Any
    live: bool = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        kwargs.setdefault("bubble", False)
        super().__init_subclass__(**kwargs)


class SessionStarted(EngineEvent):
    """`session_start`"""


class UserMessageSent(EngineEvent):
    """`user_message`"""


class AssistantDeltaArrived(EngineEvent):
    """`assistant_delta`"""


class AssistantTextArrived(EngineEvent):
    """`assistant_text`"""


class ToolCalled(EngineEvent):
    """`tool_call`"""


class ApprovalAsked(EngineEvent):
    """`approval_request`"""


class ApprovalDecided(EngineEvent):
    """`approval_decision`"""


class ToolResultArrived(EngineEvent):
    """`tool_result`"""


class ToolProgressed(EngineEvent):
    """`tool_progress`"""


class ToolOutputArrived(EngineEvent):
    """`tool_output`"""


class HookRan(EngineEvent):
    """`hook_event`"""


class PanelReceiptArrived(EngineEvent):
    """`panel_receipt`"""


class PanelStateChanged(EngineEvent):
    """`panel_state`"""


class InteractionAsked(EngineEvent):
    """`interaction_request`"""


class InteractionEnded(EngineEvent):
    """`interaction_settled`"""


class RunEnded(EngineEvent):
    """`run_end`"""


class TurnStateChanged(EngineEvent):
    """`turn_state`"""


class HooksReloaded(EngineEvent):
    """`hooks_reload`"""


class Compacted(EngineEvent):
    """`compaction`"""


class NoticeArrived(EngineEvent):
    """`notice`"""


class UsageReported(EngineEvent):
    """`usage`"""


class TurnRewound(EngineEvent):
    """`turn_rewind`"""


class AgentModelSwitched(EngineEvent):
    """`agent_model`"""


class FilesChanged(EngineEvent):
    """`file_changes`"""


class FilesUndone(EngineEvent):
    """`undo`"""


class UndrawnEvent(EngineEvent):
    """An event type this UI has no message for (written to the debug log)."""


MESSAGES: dict[type, type[EngineEvent]] = {
    events.SessionStart: SessionStarted,
    events.UserMessage: UserMessageSent,
    events.AssistantDelta: AssistantDeltaArrived,
    events.AssistantText: AssistantTextArrived,
    events.ToolCall: ToolCalled,
    events.ApprovalRequest: ApprovalAsked,
    events.ApprovalDecision: ApprovalDecided,
    events.ToolResultEvent: ToolResultArrived,
    events.ToolProgress: ToolProgressed,
    events.ToolOutput: ToolOutputArrived,
    events.HookEvent: HookRan,
    events.PanelReceipt: PanelReceiptArrived,
    events.PanelState: PanelStateChanged,
    events.InteractionRequest: InteractionAsked,
    events.InteractionSettled: InteractionEnded,
    events.RunEnd: RunEnded,
    events.TurnState: TurnStateChanged,
    events.HooksReload: HooksReloaded,
    events.Compaction: Compacted,
    events.Notice: NoticeArrived,
    events.TokenUsage: UsageReported,
    events.TurnRewind: TurnRewound,
    events.AgentModel: AgentModelSwitched,
    events.FileChanges: FilesChanged,
    events.TurnUndo: FilesUndone,
}


def message_for(event: Any, *, live: bool = True) -> EngineEvent:
    return MESSAGES.get(type(event), UndrawnEvent)(event, live)


class ReplayStarted(Message):
    """A saved history follows (drawn in one batch)."""


class ReplayFinished(Message):
    """The saved history has been posted; live events follow."""

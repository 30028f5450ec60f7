"""Compaction: the older turns summarised by the model (`/compact`, or before a request once
the context passed the agent's `compact.trigger_tokens`); `/clear` starts over."""

from __future__ import annotations

from ..protocol import bus as ev
from ..protocol import errors
from ..models.base import user_message
from .conversation import Conversation
from .model_request import stream, tool_definitions
from .state import SessionState, TurnOutcome, opt

DEFAULT_KEEP_TURNS = 2

COMPACT_INSTRUCTION = (
    "Summarise the conversation so far for your own later use: the task, what was done, "
    "files touched, decisions, and what remains. Be concise.")


async def maybe_auto_compact(s: SessionState, turn_id: str) -> None:
    """Before a model request: compact when the last request's input passed the agent's
    `compact.trigger_tokens` (the provider's Usage; the scripted model reports none)."""
    settings = s.agent.config.compact
    if settings is None or settings.trigger_tokens is None or s.last_usage is None:
        return
    if s.last_usage.input_tokens < settings.trigger_tokens:
        return
    s.last_usage = None
    await compact(s, turn_id, keep_current=True)


def _keep_turns(s: SessionState) -> int:
    settings = s.agent.config.compact
    return settings.keep_turns if settings is not None else DEFAULT_KEEP_TURNS


async def compact_turn(s: SessionState, turn_id: str) -> TurnOutcome:
    """`/compact`, with a notice saying what it did (or why it did nothing)."""
    turns = len(s.conversation.turns())
    keep = _keep_turns(s)
    if not await compact(s, turn_id, keep_current=False):
        s.notice("nothing to compact: " + (
            "the conversation is empty" if not turns else
            f"the context holds {_turns(turns)}, and compaction keeps the last {keep} "
            f"whole"), turn_id)
        return TurnOutcome("completed", message="nothing to compact")
    kept = len(s.conversation.turns())
    s.notice(f"context compacted: {_turns(turns - kept, 'earlier turn')} summarised, "
             f"{_turns(kept)} kept whole", turn_id)
    return TurnOutcome("completed")


async def compact(s: SessionState, turn_id: str, *, keep_current: bool) -> bool:
    """Summarise every turn but the last `keep_turns` (and the running one) with the model;
    the context becomes the summary, the panel reminder, then the kept turns. False when
    there was nothing older to summarise."""
    keep = _keep_turns(s)
    turns = s.conversation.turns()
    kept = turns[-keep:] if keep > 0 else []
    if keep_current and turn_id in turns and turn_id not in kept:
        kept.append(turn_id)
    older = [(t, m) for t, m in s.conversation.entries if t not in kept]
    if not older:
        return False
    messages = Conversation(entries=older, summary=s.conversation.summary,
                            reminder=s.conversation.reminder).messages()
    messages.append(user_message(COMPACT_INSTRUCTION))
    # the tools go along: a provider may refuse tool calls in a request without them
    summary, _ = await stream(s, turn_id, messages, tool_definitions(s), publish=False)
    # what the model reads from now on is what the history keeps: no secret (a panel's
    # state is kept in memory as the tool wrote it; the summary may quote one)
    summary = s.redactor.text(summary.strip() or "(the model gave no summary)")
    s.last_usage = None  # the summary request's size says nothing about the new context
    reminder = s.panels.reminder()
    reminder = s.redactor.text(reminder) if reminder is not None else None
    s.conversation.compact(summary, kept, reminder)
    s.bus.publish(ev.Compaction(summary=summary, kept_turns=kept,
                                **opt(reminder=reminder), turn_id=turn_id))
    return True


def clear(s: SessionState) -> TurnOutcome:
    """`/clear`: the model starts over. Not a turn (no run_end); saved as an empty
    compaction, so a resumed session starts over too."""
    if s.state != "idle":
        return TurnOutcome("error", errors.BUSY, f"the session is {s.state}")
    s.conversation.clear()
    s.bus.publish(ev.Compaction(summary="", kept_turns=[]))
    s.bus.publish(ev.Notice(level="info", message="conversation cleared"))
    return TurnOutcome("completed")


def _turns(n: int, noun: str = "turn") -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")

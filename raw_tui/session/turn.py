"""The turn: the user's prompt, then model request → tool calls → results, repeated until the
model answers without tool calls or `max_steps` model requests were made.

Every turn ends with exactly one run_end, after its Stop hooks. A call the turn does not run
(after approval_required or a cancel, or with arguments that are not a JSON object) gets a
synthetic result: its tool_call and tool_result events, and an error result for the model.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..protocol import bus as ev
from ..protocol import commands as cmd
from ..protocol import errors
from ..models.base import (STOP_MAX_TOKENS, ModelError, ToolCallRequest, assistant_message,
                           tool_message)
from .compaction import clear, compact_turn, maybe_auto_compact
from .model_request import TRUNCATED_TEXT, model_request
from .state import Rewind, SessionState, TurnCancelled, TurnOutcome, new_id, opt
from .switch import mcp_ready


def start(s: SessionState, text: str, rewind: Rewind | None = None) -> cmd.Reply:
    """Run a turn in the background (the Prompt command): refused unless idle."""
    refused = s.refuse_unless_idle()
    if refused is not None:
        return refused
    s.turn_task = asyncio.create_task(run_turn(s, text, rewind=rewind))
    return cmd.Reply()


def cancel(s: SessionState) -> bool:
    """Cancel the turn and every panel tool action running now (what waits is
    cancelled; nothing runs after its cancel)."""
    stopped = cancel_actions(s)
    if s.state != "running":
        return stopped
    s.state = "cancelling"
    s.cancel_signal.set()
    s.publish_state()
    return True


def cancel_actions(s: SessionState) -> bool:
    """End every panel tool action running now: one waiting for its approval is denied
    (its handler never runs), any other is cancelled. True when there was one."""
    for call_id, signal in list(s.running_actions.items()):
        if s.approver is None or not s.approver.answer(call_id, False):
            signal.set()
    return bool(s.running_actions)


async def run_turn(s: SessionState, text: str, *, last: bool = False,
                   rewind: Rewind | None = None) -> TurnOutcome:
    """Run one turn to its end; publishes exactly one run_end (also when the task running
    it is cancelled from outside, e.g. a close that timed out). The `last` turn of a
    session (a headless run) runs SessionEnd hooks after Stop, so that run_end is the
    last event of the run and their receipts come before it."""
    stripped = text.strip()
    if stripped == "/clear":
        return clear(s)
    if s.state != "idle":
        return TurnOutcome("error", errors.BUSY, f"the session is {s.state}")
    turn_id = s.turn_id = new_id("t")
    s.cancel_signal = asyncio.Event()
    s.state, s.step = "running", 0
    if s.watcher is not None:  # hook folders or the config changed: they apply now
        s.watcher.take_pending()
    s.publish_state()
    try:
        try:
            if stripped == "/compact":
                outcome = await compact_turn(s, turn_id)
            else:
                outcome = await _turn(s, turn_id, text, rewind)
        except TurnCancelled:
            outcome = TurnOutcome("cancelled", errors.CANCELLED, "cancelled")
        except ModelError as err:
            outcome = TurnOutcome("error", err.code, err.message)
        except Exception as err:  # never let a bug take the session down
            outcome = TurnOutcome("error", errors.INTERNAL_ERROR, f"{type(err).__name__}: {err}")
        outcome = _redacted(s, outcome)
        await _stop_hooks(s, turn_id, outcome, last=last)
    except asyncio.CancelledError:
        _end_turn(s, turn_id, TurnOutcome("cancelled", errors.CANCELLED, "cancelled"))
        raise
    _end_turn(s, turn_id, outcome)
    return outcome


async def _turn(s: SessionState, turn_id: str, text: str, rewind: Rewind | None) -> TurnOutcome:
    if s.mcp_task is not None and not s.mcp_task.done():
        await s.unless_cancelled(mcp_ready(s))  # the MCP tools are exposed first
    gate = await s.hooks.user_prompt_submit(text, turn_id, s.cancel_signal)
    if s.cancel_signal.is_set():
        raise TurnCancelled
    if not gate.allowed:
        return TurnOutcome("error", gate.code or errors.HOOK_DENIED, gate.reason)
    notes = s.notes[:]
    s.notes.clear()  # the list panel actions append to (panels/actions.py)
    if rewind is not None and rewind.from_turn in s.conversation.turns():
        # the superseded turns leave the context; the notes they carried stay
        notes = s.conversation.rewind(rewind.from_turn) + notes
        s.bus.publish(ev.TurnRewind(from_turn=rewind.from_turn, reason=rewind.reason,
                                    turn_id=turn_id))
    s.bus.publish(ev.UserMessage(text=text, **opt(notes=notes or None), turn_id=turn_id))
    s.conversation.add_prompt(turn_id, text, notes)
    max_steps = s.agent.config.max_steps
    while True:
        if s.step >= max_steps:
            return TurnOutcome("max_steps", errors.MAX_STEPS,
                               f"stopped after {max_steps} model requests")
        s.step += 1
        s.publish_state()
        await maybe_auto_compact(s, turn_id)
        reply_text, calls = await model_request(s, turn_id)
        s.conversation.add(turn_id, assistant_message(reply_text, calls))
        if not calls:
            if s.last_stop_reason == STOP_MAX_TOKENS:
                return TurnOutcome("completed", errors.TRUNCATED, TRUNCATED_TEXT)
            return TurnOutcome("completed")
        stop = await _run_calls(s, turn_id, calls)
        if stop is not None:
            return stop


async def _run_calls(s: SessionState, turn_id: str, calls: list[ToolCallRequest]
                     ) -> TurnOutcome | None:
    """Run one response's calls in order. After approval_required or a cancel, the
    remaining calls get `cancelled` results."""
    stop: TurnOutcome | None = None
    for call in calls:
        if stop is not None or s.cancel_signal.is_set():
            _synthetic_result(s, turn_id, call, errors.CANCELLED, "cancelled")
            continue
        if call.raw_arguments is not None and _exposed(s, call.name):
            _synthetic_result(s, turn_id, call, errors.INVALID_ARGUMENTS,
                              "invalid arguments: not a JSON object")
            continue
        arguments = call.arguments if call.raw_arguments is None else call.raw_arguments
        report = await s.dispatcher.dispatch(call.name, arguments, call_id=call.id,
                                             turn_id=turn_id, cancel=s.cancel_signal)
        s.conversation.add(turn_id, tool_message(  # no secret reaches the model
            call.id, s.redactor.text(report.result.text()), is_error=report.result.isError))
        if report.code == errors.APPROVAL_REQUIRED:
            stop = TurnOutcome("error", errors.APPROVAL_REQUIRED, report.message)
    if stop is None and s.cancel_signal.is_set():
        raise TurnCancelled
    return stop


def _exposed(s: SessionState, name: str) -> bool:
    """The call would pass step 1 (exposure); otherwise dispatch gives its code."""
    tool = s.agent.tools.find(name)
    return tool is not None and s.agent.rules.unconditional(tool.identity)[0] != "deny"


def _synthetic_result(s: SessionState, turn_id: str, call: ToolCallRequest, code: str,
                      text: str) -> None:
    tool = s.agent.tools.find(call.name)
    arguments: Any = call.raw_arguments if call.raw_arguments is not None else call.arguments
    from ..tools.summary import generic

    s.bus.publish(ev.ToolCall(call_id=call.id, identity=tool.identity if tool else call.name,
                              name=call.name, arguments=arguments, turn_id=turn_id,
                              summary=generic(tool, call.name, arguments)))
    content = [{"type": "text", "text": text}]
    s.bus.publish(ev.ToolResultEvent(call_id=call.id, isError=True, code=code,
                                     content=content, turn_id=turn_id))
    s.conversation.add(turn_id, tool_message(call.id, text, is_error=True))


def _redacted(s: SessionState, outcome: TurnOutcome) -> TurnOutcome:
    """A provider may echo the key in its error (`401 invalid key: Bearer sk-…`)."""
    if outcome.message is None:
        return outcome
    return TurnOutcome(outcome.status, outcome.code, s.redactor.text(outcome.message))


async def _stop_hooks(s: SessionState, turn_id: str, outcome: TurnOutcome, *,
                      last: bool) -> None:
    """Stop hooks, then SessionEnd hooks after the `last` turn; a failure of theirs is a
    notice, never a turn without its run_end."""
    event = "Stop"
    run = {"status": outcome.status, **opt(code=outcome.code, message=outcome.message)}
    try:
        await s.hooks.stop(turn_id, run, s.cancel_signal)
        if last:
            event, s.session_ended = "SessionEnd", True
            await s.hooks.session_end(s.cancel_signal)
    except Exception as err:
        s.bus.publish(ev.Notice(level="error", message=f"{event} hooks failed: "
                                                       f"{type(err).__name__}: {err}",
                                turn_id=turn_id))


def _end_turn(s: SessionState, turn_id: str, outcome: TurnOutcome) -> None:
    """The state goes back to idle (closing after the last turn) first, still of this
    turn: run_end is the last event of a turn."""
    ending = s.closed or s.session_ended
    s.state, s.step = ("closing" if ending else "idle"), 0
    s.turn_id = None
    s.publish_state(turn_id)
    s.bus.publish(ev.RunEnd(status=outcome.status, **opt(code=outcome.code,
                            message=outcome.message), turn_id=turn_id))

"""Retry and edit: a new turn in place of an earlier prompt and every turn after it (the
superseded turns leave the model's context: session/turn.py publishes their turn_rewind)."""

from __future__ import annotations

from ..protocol import commands as cmd
from ..protocol import errors
from . import turn
from .state import Rewind, SessionState


def retry(s: SessionState) -> cmd.Reply:
    """The last prompt still in the model's context, once more, in a new turn."""
    last = s.conversation.last_prompt_turn()
    if last is None:
        return cmd.Reply(ok=False, code=errors.REWIND_UNAVAILABLE,
                         message="nothing to retry: no prompt in the conversation")
    return turn.start(s, s.conversation.prompts[last][0], Rewind(last, "retry"))


def edit(s: SessionState, turn_id: str, text: str) -> cmd.Reply:
    """`text` in place of the prompt of `turn_id`, in a new turn."""
    if not text.strip():
        return cmd.Reply(ok=False, code=errors.REWIND_UNAVAILABLE, message="the prompt is empty")
    if turn_id not in s.conversation.prompts or turn_id not in s.conversation.turns():
        return cmd.Reply(ok=False, code=errors.REWIND_UNAVAILABLE,
                         message="that prompt is no longer in the model's context "
                                 "(cleared, compacted or replaced): send it as a new one")
    return turn.start(s, text, Rewind(turn_id, "edit"))

"""The conversation the model sees, kept as (turn, message) pairs and rebuilt from events.

The saved history holds events only; `Conversation.from_events` replays them, so a resumed
session sends the model exactly what it would have sent before. Panel state never enters:
tool results hold the confirmation and rejection lines only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..protocol import bus as ev
from ..models.base import Message, ToolCallRequest, assistant_message, tool_message, user_message
from ..tools.result import content_text
from .call_ids import CallIds


def user_text(text: str, notes: list[str] | None) -> str:
    if not notes:
        return text
    return "\n".join(notes) + "\n\n" + text


@dataclass
class Conversation:
    entries: list[tuple[str | None, Message]] = field(default_factory=list)
    summary: str | None = None
    reminder: str | None = None
    # each turn's prompt as the user sent it (text, notes): what a retry sends again
    prompts: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    # every call's key in the session, the saved ones included (session/call_ids.py)
    call_ids: CallIds = field(default_factory=CallIds)

    def messages(self) -> list[Message]:
        out = []
        if self.summary:  # an empty summary is a /clear
            out.append(user_message(f"[Summary of the earlier conversation]\n{self.summary}"))
            if self.reminder:
                out.append(user_message(self.reminder))
            out.append(assistant_message("Understood."))
        out.extend(message for _, message in self.entries)
        return answer_every_call(out)

    def turns(self) -> list[str]:
        seen: list[str] = []
        for turn, _ in self.entries:
            if turn is not None and turn not in seen:
                seen.append(turn)
        return seen

    def add(self, turn: str | None, message: Message) -> None:
        self.entries.append((turn, message))

    def add_prompt(self, turn: str | None, text: str, notes: list[str] | None) -> None:
        """The user's message opening `turn`."""
        if turn is not None:
            self.prompts[turn] = (text, list(notes or ()))
        self.add(turn, user_message(user_text(text, notes)))

    def last_prompt_turn(self) -> str | None:
        """The latest turn still in the context that began with a prompt (what Retry runs
        again), or None."""
        return next((t for t in reversed(self.turns()) if t in self.prompts), None)

    def rewind(self, from_turn: str) -> list[str]:
        """Drop `from_turn` and every later entry; returns the notes their prompts carried
        (the model read them there, so the turn replacing them carries them again)."""
        index = next(i for i, (t, _) in enumerate(self.entries) if t == from_turn)
        dropped = {t for t, _ in self.entries[index:] if t is not None}
        self.entries = self.entries[:index]
        return [note for turn in self.turns_in_order(dropped)
                for note in self.prompts.get(turn, ("", []))[1]]

    def turns_in_order(self, turns: set[str]) -> list[str]:
        return [t for t in self.prompts if t in turns]

    def compact(self, summary: str, kept_turns: list[str], reminder: str | None) -> None:
        self.entries = [(t, m) for t, m in self.entries if t in kept_turns]
        self.summary, self.reminder = summary, reminder

    def clear(self) -> None:
        self.entries, self.summary, self.reminder = [], None, None

    @classmethod
    def from_events(cls, events: list[ev.Event]) -> "Conversation":
        """The conversation of a saved history. A history saved before calls had keys of
        their own may name two calls with one id: each such call gets a fresh key, and each
        result the key of the oldest call of its id still unanswered in its response."""
        conv = cls()
        current: Message | None = None
        unanswered: dict[str, list[str]] = {}  # a saved id -> keys of the current response
        for event in events:
            if isinstance(event, (ev.UserMessage, ev.AssistantText, ev.RunEnd)):
                unanswered = {}
            turn = event.turn_id if isinstance(event.turn_id, str) else None
            if isinstance(event, ev.UserMessage):
                notes = event.notes if isinstance(event.notes, list) else None
                conv.add_prompt(turn, event.text, notes)
                current = None
            elif isinstance(event, ev.TurnRewind):
                if event.from_turn in conv.turns():
                    conv.rewind(event.from_turn)
                current = None
            elif isinstance(event, ev.AssistantText):
                current = assistant_message(event.text)
                conv.add(turn, current)
            elif isinstance(event, ev.ToolCall) and turn is None:
                conv.call_ids.note(event.call_id)  # a panel action's call: not the model's
            elif isinstance(event, ev.ToolCall):
                key = conv.call_ids.key(event.call_id)
                unanswered.setdefault(event.call_id, []).append(key)
                if current is None:
                    current = assistant_message("")
                    conv.add(turn, current)
                args = event.arguments if isinstance(event.arguments, dict) else {}
                raw = None if isinstance(event.arguments, dict) else str(event.arguments)
                current.tool_calls.append(ToolCallRequest(id=key, name=event.name,
                                                          arguments=args, raw_arguments=raw))
            elif isinstance(event, ev.ToolResultEvent) and turn is not None:
                keys = unanswered.get(event.call_id)
                key = keys.pop(0) if keys else event.call_id
                conv.add(turn, tool_message(key, content_text(event.content),
                                            is_error=event.isError))
            elif isinstance(event, ev.Compaction):
                reminder = event.reminder if isinstance(event.reminder, str) else None
                conv.compact(event.summary, event.kept_turns, reminder)
                current = None
            elif isinstance(event, ev.RunEnd):
                current = None
        return conv


UNFINISHED = "the call did not finish: it was interrupted"


def answer_every_call(messages: list[Message]) -> list[Message]:
    """`messages` where every assistant tool call is answered before the next message: a
    call whose result was never saved (a crash or `kill -9` while it ran) gets an error
    result, since both providers refuse a conversation with an unanswered call."""
    out: list[Message] = []
    waiting: list[str] = []
    for message in messages:
        if message.role == "tool":
            if message.tool_call_id in waiting:
                waiting.remove(message.tool_call_id)
            out.append(message)
            continue
        out.extend(tool_message(call_id, UNFINISHED, is_error=True) for call_id in waiting)
        waiting = [call.id for call in message.tool_calls] if message.role == "assistant" else []
        out.append(message)
    out.extend(tool_message(call_id, UNFINISHED, is_error=True) for call_id in waiting)
    return out


def request_prompts(events: list[ev.Event], compaction_prompt: str) -> list[str]:
    """What each model request of a saved session answered, in order: the turn's user
    message (as the model read it, notes first) for a turn's first request, `""` for one
    answering tool results, `compaction_prompt` for a compaction's. Each attachment's turns
    made as many requests as their highest step (a step is published before its request
    starts, so a request cut off by a cancel or a crash counts). A scripted model replays
    these to stand where it stood."""
    out: list[str] = []
    highest, prompt = 0, ""
    for event in events:
        if isinstance(event, ev.TurnState) and event.state in ("running", "cancelling"):
            for step in range(highest + 1, event.step + 1):
                out.append(prompt if step == 1 else "")
            highest = max(highest, event.step)
        elif isinstance(event, ev.UserMessage):
            prompt = user_text(event.text, event.notes if isinstance(event.notes, list) else None)
        elif isinstance(event, (ev.RunEnd, ev.SessionStart)):
            highest, prompt = 0, ""
        elif isinstance(event, ev.Compaction) and event.summary:  # not a /clear
            out.append(compaction_prompt)  # (an automatic one needs a model reporting Usage)
    return out

"""`scripted` (docs/sessions.md): a model that replays a JSONL script.

Each model request takes the next line, `{"text"?: str, "tool_calls"?: [{"name",
"arguments", "id"?}]}`; when the script runs out the model answers with empty text (no
deltas) and the turn ends. The text streams word by word, whitespace kept, so the deltas
concatenate to the text exactly.

Decisions where the contract is silent (docs/sessions.md):
- The whole script is read and checked when the provider is made (`load_script`), so
  `config list` reports a bad line before anything runs: a ConfigError `FILE:LINE: ...`
  for invalid JSON, a duplicate or unknown key, a wrong type. Blank lines are skipped
  (they still count for line numbers).
- `arguments` is a JSON object, or a string holding the arguments' JSON text as a model
  would send it: a string that is not a JSON object gives a call with `raw_arguments`
  (so a script can exercise `invalid_arguments`).
- A call without `id` gets `call_<n>`, n counting every tool call of the script from 1 in
  order: ids are the same on every replay and after a resume.
- A line is consumed when a request starts (a cancelled request does not replay it).
  `position` (0-based index of the next line) can be read and set, so a resumed session
  can continue where it was.
- The scripted model reports no Usage. `delay_ms` (default 0) paces the deltas.
- `after_error` (a line's optional `{text?, tool_calls?}`): what the line says instead when
  a result of the model's previous tool calls was an error (a denied write, a cancelled
  question), as a model reading its results would.
- `prompt` (an RE2 pattern): the line is an answer, not a step: a request answering a user
  message the pattern finds (unanchored search) gets it, at any point of the script, and
  the script does not move on. The first such line that matches wins.
- `when_done` (the model entry's optional text): once the script has run out, a user
  message replays the script from its first line, this text first (its own paragraph);
  a request that answers tool results gets empty text. The demo sets it, so every prompt
  after its end makes sense.
"""

from __future__ import annotations

import asyncio
import copy
import re
from pathlib import Path
from typing import Any, AsyncIterator

import msgspec

from ..protocol.errors import ConfigError
from ..jsonstrict import JsonError, decode, read_bounded
from .base import (
    METHOD_SCRIPTED,
    STOP_END_TURN,
    STOP_TOOL_USE,
    Done,
    Message,
    StreamItem,
    TextDelta,
    ToolCallRequest,
    ToolDefinition,
    spec_path,
    tool_call_from_json,
)

WORD = re.compile(r"\s*\S+\s*|\s+")  # our own fixed pattern, not user-supplied


class ScriptCall(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    arguments: Any
    id: str | None = None


class ScriptReply(msgspec.Struct, forbid_unknown_fields=True):
    text: str = ""
    tool_calls: list[ScriptCall] = msgspec.field(default_factory=list)


class ScriptLine(ScriptReply, forbid_unknown_fields=True):
    prompt: str | None = None  # an RE2 pattern: an answer line, not a step
    after_error: ScriptReply | None = None  # instead, after a failed tool result


class ScriptStep(msgspec.Struct, frozen=True):
    """One model response of the script."""

    text: str
    tool_calls: tuple[ToolCallRequest, ...]
    after_error: "ScriptStep | None" = None
    prompt: Any = None  # the compiled pattern of an answer line


class Script(list):
    """The steps of a script, in order; `answers` holds its answer lines (`prompt`)."""

    answers: list[ScriptStep]


MAX_SCRIPT_BYTES = 16 * 1024 * 1024


def load_script(path: str | Path) -> list[ScriptStep]:
    """Read and check a JSONL script. Raises ConfigError naming `FILE:LINE`."""
    try:
        content = read_bounded(Path(path), MAX_SCRIPT_BYTES).decode("utf-8")
    except ConfigError as exc:  # a FIFO, /dev/zero, a huge file: read no further
        detail = exc.detail.removeprefix("cannot read: ")
        raise ConfigError(f"cannot read script: {detail}", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read script: {exc}", file=str(path)) from None
    entries: list[tuple[str, Any]] = []
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            value = decode(line)
        except JsonError as exc:
            if exc.syntax is not None:
                detail = f"not valid JSON: {exc.syntax.msg} at column {exc.syntax.colno}"
                raise ConfigError(detail, file=where) from None
            raise ConfigError(exc.detail, file=where, path=exc.path() if exc.where else "") \
                from None
        entries.append((where, value))
    return build_steps(entries)


def script_from_list(lines: list[Any], name: str = "<script>") -> list[ScriptStep]:
    """An inline script (tests): the same checks, lines numbered from 1."""
    return build_steps([(f"{name}:{n}", value) for n, value in enumerate(lines, start=1)])


def build_steps(entries: list[tuple[str, Any]]) -> Script:
    steps = Script()
    steps.answers = []
    counter = 0

    def step(where: str, reply: ScriptReply, prefix: str = "", **extra: Any) -> ScriptStep:
        nonlocal counter
        calls = []
        for index, call in enumerate(reply.tool_calls):
            counter += 1
            calls.append(make_call(where, index, call, call.id or f"call_{counter}",
                                   prefix=prefix))
        return ScriptStep(text=reply.text, tool_calls=tuple(calls), **extra)

    for where, value in entries:
        line = convert_line(where, value)
        alternative = None
        if line.after_error is not None:
            alternative = step(where, line.after_error, "after_error.")
        made = step(where, line, after_error=alternative,
                    prompt=None if line.prompt is None else compile_prompt(where, line.prompt))
        (steps if made.prompt is None else steps.answers).append(made)
    return steps


def compile_prompt(where: str, pattern: str) -> Any:
    """A line's `prompt` as an RE2 pattern (a script is the user's: never stdlib re)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise ConfigError(f"not a valid RE2 pattern: {detail}", file=where,
                          path="prompt") from None


def convert_line(where: str, value: Any) -> ScriptLine:
    if not isinstance(value, dict):
        raise ConfigError("a script line must be a JSON object", file=where)
    try:
        return msgspec.convert(value, ScriptLine)
    except msgspec.ValidationError as exc:
        detail, _, at = str(exc).partition(" - at `$")
        raise ConfigError(detail, file=where, path=at.rstrip("`").lstrip(".")) from None


def make_call(where: str, index: int, call: ScriptCall, call_id: str,
              prefix: str = "") -> ToolCallRequest:
    if isinstance(call.arguments, dict):
        return ToolCallRequest(id=call_id, name=call.name, arguments=call.arguments)
    if isinstance(call.arguments, str):
        return tool_call_from_json(call_id, call.name, call.arguments)
    raise ConfigError(
        "arguments must be an object (or a string of JSON text)",
        file=where,
        path=f"{prefix}tool_calls[{index}].arguments",
    )


def last_prompt(messages: list[Message]) -> str:
    """The user's text when the request answers a prompt (not a tool result), else ''."""
    return messages[-1].text if messages and messages[-1].role == "user" else ""


def results_failed(messages: list[Message]) -> bool:
    """A result of the last response with tool calls was an error."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant" and messages[index].tool_calls:
            return any(m.role == "tool" and m.is_error for m in messages[index + 1:])
    return False


def words(text: str) -> list[str]:
    """Word-by-word pieces that concatenate to `text`."""
    return WORD.findall(text)


class ScriptedModel:
    name = METHOD_SCRIPTED

    def __init__(self, steps: list[ScriptStep], *, delay_ms: int = 0, source: str = "<script>",
                 when_done: str = "") -> None:
        self.steps = list(steps)
        self.answers: list[ScriptStep] = list(getattr(steps, "answers", ()))
        self.when_done = when_done
        self.delay_ms = delay_ms
        self.source = source
        self._position = 0

    def __repr__(self) -> str:
        return f"ScriptedModel(source={self.source!r}, position={self._position}/{len(self.steps)})"

    @classmethod
    def from_spec(cls, spec: Any) -> ScriptedModel:
        script = getattr(spec, "script", None)
        if script is None or script == "":
            raise ConfigError(f"script is required for method {METHOD_SCRIPTED}", path=spec_path(spec, "script"))
        when_done = getattr(spec, "when_done", None) or ""
        if isinstance(script, list):
            return cls(script_from_list(script), when_done=when_done)
        return cls(load_script(script), source=str(script), when_done=when_done)

    @classmethod
    def from_path(cls, path: str | Path, *, delay_ms: int = 0) -> ScriptedModel:
        return cls(load_script(path), delay_ms=delay_ms, source=str(path))

    @classmethod
    def from_list(cls, lines: list[Any], *, delay_ms: int = 0) -> ScriptedModel:
        return cls(script_from_list(lines), delay_ms=delay_ms)

    @property
    def position(self) -> int:
        """Index of the next line to replay (== len(steps) when exhausted)."""
        return self._position

    @position.setter
    def position(self, value: int) -> None:
        if not 0 <= value <= len(self.steps):
            raise ValueError(f"script position {value} is outside 0..{len(self.steps)}")
        self._position = value

    @property
    def exhausted(self) -> bool:
        return self._position >= len(self.steps)

    def next_step(self, prompt: str = "", *, failed: bool = False) -> ScriptStep:
        """The reply to a request answering `prompt` (empty: answering tool results, of
        which one was an error when `failed`)."""
        if prompt:
            for answer in self.answers:
                if answer.prompt.search(prompt):
                    return answer
        preface = ""
        if self.exhausted and self.when_done and prompt:
            self._position, preface = 0, self.when_done
        if self.exhausted:
            return ScriptStep(text="", tool_calls=())
        step = self.steps[self._position]
        self._position += 1
        if failed and step.after_error is not None:
            step = step.after_error
        if preface:
            text = preface + ("\n\n" + step.text if step.text else "")
            step = ScriptStep(text=text, tool_calls=step.tool_calls)
        return step

    def replay(self, prompts: list[str]) -> None:
        """Stand where these requests left the script (a resumed session): each is the
        prompt a request answered, `""` for one answering tool results."""
        self._position = 0
        for prompt in prompts:
            self.next_step(prompt)

    async def stream(
        self,
        messages: list[Message],
        tools: list[ToolDefinition],
        *,
        system: str | None = None,
    ) -> AsyncIterator[StreamItem]:
        step = self.next_step(last_prompt(messages), failed=results_failed(messages))
        for piece in words(step.text):
            await asyncio.sleep(self.delay_ms / 1000)
            yield TextDelta(piece)
        for call in step.tool_calls:
            yield copy.deepcopy(call)  # the consumer may keep or change it; a replay stays intact
        yield Done(STOP_TOOL_USE if step.tool_calls else STOP_END_TURN)

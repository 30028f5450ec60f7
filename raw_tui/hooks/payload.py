"""The stdin payload of `raw.hook/2` (docs/hooks.md), as msgspec Structs.

Always: `protocol_version` (2), `event`, `cwd`; when known: `agent_id`, `session_id`,
`turn_id`; per event: `source` (SessionStart: `create` | `resume`), `input`
(UserPromptSubmit), `tool {identity, name, source, arguments, effects?, result?}` (tool events;
`result` on PostToolUse / PostToolUseFailure), `run {status, code?, message?}` (Stop).
Unset fields are left out of the JSON.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from .manifest import PROTOCOL_VERSION

UNSET = msgspec.UNSET


class ToolInfo(msgspec.Struct):
    identity: str
    name: str
    source: str  # "model" | "user_action"
    arguments: Any
    effects: Any | msgspec.UnsetType = UNSET
    result: Any | msgspec.UnsetType = UNSET


class RunInfo(msgspec.Struct):
    status: str  # completed | error | cancelled | max_steps | (hook_denied runs end as error)
    code: str | msgspec.UnsetType = UNSET
    message: str | msgspec.UnsetType = UNSET


class HookPayload(msgspec.Struct, kw_only=True):
    protocol_version: int = PROTOCOL_VERSION
    event: str
    cwd: str
    agent_id: str | msgspec.UnsetType = UNSET
    session_id: str | msgspec.UnsetType = UNSET
    turn_id: str | msgspec.UnsetType = UNSET
    source: str | msgspec.UnsetType = UNSET
    input: str | msgspec.UnsetType = UNSET
    tool: ToolInfo | msgspec.UnsetType = UNSET
    run: RunInfo | msgspec.UnsetType = UNSET


_encoder = msgspec.json.Encoder()


def encode_payload(payload: HookPayload | dict[str, Any]) -> bytes:
    """One JSON object, no newline (the runner adds it). Text that is not valid Unicode (a
    prompt from argv may hold `\\udcff`) is sent as a `\\uXXXX` escape, never dropped."""
    try:
        return _encoder.encode(payload)
    except UnicodeEncodeError:
        data = json.dumps(msgspec.to_builtins(payload), ensure_ascii=True, separators=(",", ":"))
        return data.encode("ascii")


def run_info(run: Any) -> RunInfo:
    """A RunInfo from a RunInfo, a mapping `{status, code?, message?}` or an object with those."""
    if isinstance(run, RunInfo):
        return run
    get = run.get if isinstance(run, dict) else (lambda key, default=None: getattr(run, key, default))
    code, message = get("code", None), get("message", None)
    return RunInfo(
        status=str(get("status")),
        code=UNSET if code in (None, UNSET) else str(code),
        message=UNSET if message in (None, UNSET) else str(message),
    )

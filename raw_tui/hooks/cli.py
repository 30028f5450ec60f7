"""`raw-tui hooks test ID --event EVENT [--payload FILE]`: run one hook once (docs/command-line.md).

The payload is a default one built for the event (a `builtin/bash` call running `printf hi`
for tool events, `hello` for UserPromptSubmit, `{status: completed}` for Stop, `create` for
SessionStart) with the top-level fields of FILE's JSON object laid over it; `protocol_version`
and `event` are always set. The hook runs whether or not its `match`/`when` would select this
payload (a note on stderr says when they would not). Prints the receipt line, then the decision
as one JSON object; the hook's stderr, if any, goes to stderr. As in a session, every configured
secret is taken out of the payload the hook reads and of everything printed (`raw_tui/protocol/redact.py`).

Exit codes: 0 continued, 1 denied or error, 2 configuration error (bad config, unknown hook id,
an event the hook does not subscribe to, an unreadable payload file).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, Callable, TextIO, Union

import msgspec

from ..protocol.errors import TOOL_ERROR, ConfigError
from ..frozen import freeze
from ..jsonstrict import loads
from ..protocol.redact import Redactor
from ..protocol.termsafe import escape_controls
from ..tools.ports import CallInfo
from .dispatcher import select_for_call, format_receipt, make_receipt
from .load import HookSet, LoadedHook
from .manifest import EVENTS, GATE_EVENTS, TOOL_EVENTS
from .payload import encode_payload
from .runner import MAX_INPUT_BYTES, HookRun, run_hook

HookSetSource = Union[HookSet, Callable[[], HookSet]]


def default_payload(event: str, *, cwd: str) -> dict[str, Any]:
    """The payload `hooks test` sends for `event` before FILE's fields are laid over it."""
    payload: dict[str, Any] = {"protocol_version": 2, "event": event, "cwd": cwd,
                               "agent_id": "test", "session_id": "hooks-test"}
    if event != "SessionStart" and event != "SessionEnd":
        payload["turn_id"] = "t1"
    if event == "SessionStart":
        payload["source"] = "create"
    elif event == "UserPromptSubmit":
        payload["input"] = "hello"
    elif event == "Stop":
        payload["run"] = {"status": "completed"}
    elif event in TOOL_EVENTS:
        payload["tool"] = {"identity": "builtin/bash", "name": "bash", "source": "model",
                           "arguments": {"commands": [{"command": "printf hi"}]}}
        if event == "PostToolUse":
            payload["tool"]["result"] = {"isError": False, "content": [{"type": "text", "text": "hi"}]}
        elif event == "PostToolUseFailure":
            payload["tool"]["result"] = {"isError": True, "code": TOOL_ERROR,
                                         "content": [{"type": "text", "text": "bash failed: exit 1"}]}
    return payload


def hooks_test(hookset_or_loader: HookSetSource, hook_id: str, event: str,
               payload_file: str | Path | None, *, cwd: str | None = None,
               out: TextIO | None = None, err: TextIO | None = None,
               redactor: Redactor | None = None) -> int:
    """Run `hook_id` once for `event`; print its receipt and decision; return the exit code.

    `hookset_or_loader` is a HookSet or a callable returning one (it may raise ConfigError:
    exit 2). To test a hook that is not in the agent's `hooks.use`, pass
    `lambda: load_hooks([hook_id], config_dir=..., tools=..., where=[...], file=...)`.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    redactor = redactor or Redactor()
    cwd = cwd or os.getcwd()
    owned = callable(hookset_or_loader)
    try:
        hookset = hookset_or_loader() if owned else hookset_or_loader
    except ConfigError as exc:
        print(f"error: {exc}", file=err)
        return 2
    hook: LoadedHook | None = None
    try:
        hook = _pick(hookset, hook_id, event)
        payload = _payload(event, payload_file, cwd)
        _note_selection(hook, event, payload, err)
        run = asyncio.run(run_hook(hook, redactor.encoded(encode_payload(payload)), gate=event in GATE_EVENTS, cwd=cwd))
    except ConfigError as exc:
        print(f"error: {exc}", file=err)
        return 2
    finally:
        if owned:
            hookset.close()
        elif hook is not None:
            hook.close()  # only the materialised copy goes; the snapshot stays usable
    _print(hook, event, run, out, err, redactor)
    return 0 if run.outcome == "continued" else 1


def _pick(hookset: HookSet, hook_id: str, event: str) -> LoadedHook:
    hook = hookset.get(hook_id)
    if hook is None:
        listed = ", ".join(hookset.ids) or "none"
        raise ConfigError(f"hook {hook_id} is not selected (hooks.use: {listed})")
    if event not in EVENTS:
        raise ConfigError(f"unknown event {event}; one of {', '.join(EVENTS)}")
    if event not in hook.manifest.events:
        raise ConfigError(f"hook {hook_id} does not subscribe to {event}")
    return hook


def _payload(event: str, payload_file: str | Path | None, cwd: str) -> dict[str, Any]:
    payload = default_payload(event, cwd=cwd)
    if payload_file is None:
        return payload
    try:  # bounded: `/dev/zero` never ends; a pipe (`<(jq ...)`) is fine
        with open(payload_file, "rb") as file:
            data = file.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise ConfigError(f"the payload is over the limit of {MAX_INPUT_BYTES} bytes",
                              file=str(payload_file))
        text = data.decode("utf-8")
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the payload: {exc}", file=str(payload_file)) from None
    given = loads(text, file=str(payload_file))  # strict, bounded: one clean error
    if not isinstance(given, dict):
        raise ConfigError("the payload must be a JSON object", file=str(payload_file))
    payload.update(given)
    payload["protocol_version"] = 2
    payload["event"] = event
    return payload


def _note_selection(hook: LoadedHook, event: str, payload: dict[str, Any], err: TextIO) -> None:
    """On tool events, say when the hook's match/when would not select this payload."""
    tool = payload.get("tool")
    if event not in TOOL_EVENTS or not isinstance(tool, dict):
        return
    call = CallInfo(identity=str(tool.get("identity", "")), name=str(tool.get("name", "")),
                    call_id="hooks-test", arguments=freeze(tool.get("arguments")),
                    effects=freeze(tool.get("effects")), has_effects="effects" in tool,
                    source=str(tool.get("source", "model")))
    selection = select_for_call(event, call)(hook)
    if selection == "skip":
        print(f"note: no {event} subscription of {hook.id} matches this payload; "
              "in a session the hook would not run", file=err)
    elif selection == "unavailable":
        print(f"note: in a session this call would be blocked: "
              f"hook {hook.id}: effects inspection unavailable", file=err)


def _print(hook: LoadedHook, event: str, run: HookRun, out: TextIO, err: TextIO,
           redactor: Redactor) -> None:
    if run.stderr:
        err.write(redactor.text(run.stderr.decode("utf-8", "replace")))
        if not run.stderr.endswith(b"\n"):
            err.write("\n")
    receipt = redactor.text(format_receipt(make_receipt(hook.id, event, run, None)))
    print(escape_controls(receipt), file=out)  # a text line; the JSON line escapes by itself
    decision: dict[str, Any] = {"id": hook.id, "event": event, "outcome": run.outcome,
                                "decision": run.decision, "duration_ms": run.duration_ms}
    for key in ("reason", "message", "code", "detail"):
        value = getattr(run, key)
        if value is not None:
            decision[key] = value
    print(msgspec.json.encode(redactor.json(decision)).decode(), file=out)

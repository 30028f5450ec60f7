"""Events → hooks → receipts (docs/hooks.md). Implements `ToolHooks` (raw_tui.tools.ports).

For one event the hooks run one at a time in `hooks.use` order. A hook runs when one of its
subscriptions for the event matches (`match` glob over the identity and `when` predicate on
tool events; nothing to match on the other events); a hook that does not match runs nothing
and leaves no receipt. Every hook that ran gives a `HookEvent` receipt, published on the bus
and returned.

Gate events (UserPromptSubmit, PreToolUse) follow the caller's `cancel`: the first deny or
error stops the rest and blocks — code `hook_denied` with the hook's reason (else
`hook ID denied`), or `hook_error` with `hook ID failed: CODE`. A PreToolUse subscription whose
`when` reads `effects` of a tool without effects blocks with
`hook ID: effects inspection unavailable` (a receipt with that message, outcome `error`).

Notification events (SessionStart, PostToolUse, PostToolUseFailure, Stop, SessionEnd) only
produce receipts. Post*, Stop and SessionEnd take the turn's `cancel` too, but it does not end
them at once: they get a 2 s grace deadline counted from the moment `cancel` is set; a hook
still running then is ended (`aborted`) and the hooks after it are not started.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, Callable, Literal

import msgspec

from ..protocol.bus import Bus, HookEvent
from ..protocol.errors import HOOK_DENIED, HOOK_ERROR
from ..tools.ports import CallInfo, GateOutcome
from .load import HookSet, LoadedHook
from .manifest import GATE_EVENTS
from .payload import HookPayload, ToolInfo, encode_payload, run_info
from .runner import HookRun, run_hook

GRACE_AFTER_CANCEL_S = 2.0
EFFECTS_UNAVAILABLE = "effects inspection unavailable"

Selection = Literal["run", "skip", "unavailable"]
Selector = Callable[[LoadedHook], Selection]


def format_receipt(receipt: HookEvent) -> str:
    """`Hook ID EVENT: OUTCOME[ · MESSAGE or CODE]`."""
    line = f"Hook {receipt.id} {receipt.event}: {receipt.outcome}"
    if receipt.message is not msgspec.UNSET and receipt.message:
        line += f" · {receipt.message}"
    elif receipt.code is not msgspec.UNSET and receipt.code:
        line += f" · {receipt.code}"
    return line


def make_receipt(hook_id: str, event: str, run: HookRun, turn_id: str | None) -> HookEvent:
    return HookEvent(
        id=hook_id,
        event=event,
        outcome=run.outcome,
        duration_ms=run.duration_ms,
        message=_opt(run.message),
        code=_opt(run.code),
        turn_id=_opt(turn_id),
    )


class HookDispatcher:
    """Runs an agent's hooks for the seven events. `hookset` may be replaced between turns
    (`swap`); a call in progress keeps the set it started with."""

    def __init__(self, hookset: HookSet, bus: Bus | None, *, cwd: str,
                 agent_id: str | None = None, session_id: str | None = None) -> None:
        self.hookset = hookset
        self.bus = bus
        self.cwd = str(cwd)
        self.agent_id = agent_id
        self.session_id = session_id

    def close(self) -> None:
        """Remove the materialised copies of the hooks in use (`raw-tui call` calls it when
        the call is over; the snapshots stay usable)."""
        self.hookset.close()

    def swap(self, hookset: HookSet) -> HookSet:
        """Use `hookset` from now on; returns the previous one (the caller closes it)."""
        old, self.hookset = self.hookset, hookset
        return old

    # ------------------------------------------------------------------ lifecycle events

    async def session_start(self, source: Literal["create", "resume"] = "create") -> list[HookEvent]:
        """Once per attachment (`resume` when an existing session is reopened)."""
        return await self._notify("SessionStart", select_for_event("SessionStart"), None, None,
                                  lambda: self._payload("SessionStart", None, source=source))

    async def user_prompt_submit(self, text: str, turn_id: str | None,
                                 cancel: asyncio.Event | None = None) -> GateOutcome:
        """A gate: a blocked outcome means the prompt is not stored and the model not called."""
        return await self._gate("UserPromptSubmit", select_for_event("UserPromptSubmit"), turn_id, cancel,
                                lambda: self._payload("UserPromptSubmit", turn_id, input=text))

    async def stop(self, turn_id: str | None, run: Any,
                   cancel: asyncio.Event | None = None) -> list[HookEvent]:
        """A turn finished; `run` is `{status, code?, message?}` (a dict, RunInfo or RunEnd)."""
        info = run_info(run)
        return await self._notify("Stop", select_for_event("Stop"), turn_id, cancel,
                                  lambda: self._payload("Stop", turn_id, run=info))

    async def session_end(self, cancel: asyncio.Event | None = None) -> list[HookEvent]:
        return await self._notify("SessionEnd", select_for_event("SessionEnd"), None, cancel,
                                  lambda: self._payload("SessionEnd", None))

    # ------------------------------------------------------------------ tool events (ToolHooks)

    async def pre_tool_use(self, call: CallInfo, cancel: asyncio.Event) -> GateOutcome:
        """Dispatch step 5."""
        return await self._gate("PreToolUse", select_for_call("PreToolUse", call), call.turn_id, cancel,
                                lambda: self._payload("PreToolUse", call.turn_id, tool=_tool(call)))

    async def post_tool_use(self, call: CallInfo, result: Any,
                            cancel: asyncio.Event | None = None) -> list[HookEvent]:
        """PostToolUse, or PostToolUseFailure when `result["isError"]`; never changes `result`."""
        result = _result_dict(result)
        event = "PostToolUseFailure" if result.get("isError") else "PostToolUse"
        return await self._notify(event, select_for_call(event, call), call.turn_id, cancel,
                                  lambda: self._payload(event, call.turn_id,
                                                        tool=_tool(call, result=result)))

    # ------------------------------------------------------------------ the two loops

    async def _gate(self, event: str, select: Selector, turn_id: str | None,
                    cancel: asyncio.Event | None, build: Callable[[], HookPayload]) -> GateOutcome:
        receipts: list[HookEvent] = []
        data: bytes | None = None
        for hook in self.hookset:
            selection = select(hook)
            if selection == "skip":
                continue
            if selection == "unavailable":
                receipts.append(self._publish(HookEvent(
                    id=hook.id, event=event, outcome="error", duration_ms=0,
                    message=EFFECTS_UNAVAILABLE,
                    turn_id=_opt(turn_id))))
                return GateOutcome(False, HOOK_ERROR, f"hook {hook.id}: {EFFECTS_UNAVAILABLE}", receipts)
            data = data if data is not None else self._encode(build())
            run = await run_hook(hook, data, gate=True, cwd=self.cwd, cancel=cancel)
            receipts.append(self._publish(make_receipt(hook.id, event, run, turn_id)))
            if run.outcome == "denied":
                return GateOutcome(False, HOOK_DENIED, run.reason or f"hook {hook.id} denied", receipts)
            if run.outcome == "error":
                return GateOutcome(False, HOOK_ERROR, f"hook {hook.id} failed: {run.code}", receipts)
        return GateOutcome(True, receipts=receipts)

    async def _notify(self, event: str, select: Selector, turn_id: str | None,
                      cancel: asyncio.Event | None, build: Callable[[], HookPayload]) -> list[HookEvent]:
        receipts: list[HookEvent] = []
        data: bytes | None = None
        selected = [hook for hook in self.hookset if select(hook) == "run"]
        if not selected:  # the common case: no task for the grace deadline
            return receipts
        async with grace_deadline(cancel, GRACE_AFTER_CANCEL_S) as abort:
            for hook in selected:
                if abort is not None and abort.is_set():
                    break
                data = data if data is not None else self._encode(build())
                run = await run_hook(hook, data, gate=False, cwd=self.cwd, cancel=abort)
                receipts.append(self._publish(make_receipt(hook.id, event, run, turn_id)))
        return receipts

    def _encode(self, payload: HookPayload) -> bytes:
        """The payload as written to a hook's stdin, without any configured secret."""
        data = encode_payload(payload)
        return self.bus.redactor.encoded(data) if self.bus is not None else data

    def _publish(self, receipt: HookEvent) -> HookEvent:
        if self.bus is not None:
            self.bus.publish(receipt)
        return receipt

    def _payload(self, event: str, turn_id: str | None, **fields: Any) -> HookPayload:
        return HookPayload(
            event=event,
            cwd=self.cwd,
            agent_id=_opt(self.agent_id),
            session_id=_opt(self.session_id),
            turn_id=_opt(turn_id),
            **fields,
        )


@asynccontextmanager
async def grace_deadline(cancel: asyncio.Event | None, seconds: float):
    """Yield an event that is set `seconds` after `cancel` is set (None without `cancel`)."""
    if cancel is None:
        yield None
        return
    abort = asyncio.Event()

    async def arm() -> None:
        await cancel.wait()
        await asyncio.sleep(seconds)
        abort.set()

    task = asyncio.ensure_future(arm())
    try:
        yield abort
    finally:
        task.cancel()


def select_for_event(event: str) -> Selector:
    """Non-tool events: a hook runs when it subscribes to the event."""
    return lambda hook: "run" if event in hook.manifest.events else "skip"


def select_for_call(event: str, call: CallInfo) -> Selector:
    """Tool events: some subscription's `match` covers the identity and its `when` matches."""

    def select(hook: LoadedHook) -> Selection:
        unavailable = False
        for sub in hook.manifest.for_event(event):
            if not sub.covers(call.identity):
                continue
            if sub.when is None:
                return "run"
            if sub.when.source == "effects" and not call.has_effects:
                unavailable = unavailable or event in GATE_EVENTS
                continue
            value = call.effects if sub.when.source == "effects" else call.arguments
            if sub.when.matches(value):
                return "run"
        return "unavailable" if unavailable else "skip"

    return select


def _tool(call: CallInfo, *, result: Any = msgspec.UNSET) -> ToolInfo:
    return ToolInfo(
        identity=call.identity,
        name=call.name,
        source=call.source,
        arguments=call.arguments,
        effects=call.effects if call.has_effects else msgspec.UNSET,
        result=result,
    )


def _result_dict(result: Any) -> dict[str, Any]:
    """The result as hooks see it: `{isError, content, code?, truncated?}`, `isError` always
    present (also in a plain dict)."""
    if isinstance(result, dict):
        data = result
    elif hasattr(result, "to_dict"):
        data = result.to_dict()
    else:
        data = msgspec.to_builtins(result)
    rest = {key: value for key, value in data.items() if key != "isError"}
    return {"isError": bool(data.get("isError", False)), **rest}


def _opt(value: str | None) -> Any:
    return msgspec.UNSET if value is None else value

"""Run one hook once: spawn, feed the payload, collect, decide (docs/hooks.md).

No shell. The process runs from the hook's materialised snapshot with `cwd` = the session's,
leads its own process group (raw_tui.tools.procgroup), gets the payload and `\\n` on stdin
(at most 1 MiB, else `input_too_large` without spawning), and may write at most 64 KiB on
stdout and stderr together (else it is ended: `output_too_large`). On timeout, cancel or
overflow: SIGTERM to the whole process tree (its group, its descendants, and whatever
double-forked away: raw_tui.tools.proctree), SIGKILL 500 ms later. When the hook exits, what
it left running has a cleanup window of 500 ms (CLEANUP_WINDOW_S) to end by itself; then
the tree is ended the same way.

| what happened | gate event | notification event |
| --- | --- | --- |
| exit 0, empty stdout | continued | continued |
| exit 0, valid response | its decision | continued (+ message) |
| exit 2 | denied (stdout's reason/message used when valid) | error `exit` |
| other exit / killed by a signal | error `exit` | error `exit` |
| bad stdout | error `invalid_output` | error `invalid_output` |

stderr is never parsed; it is kept (capped) in `HookRun.stderr` for `hooks test`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..protocol.errors import (HOOK_ABORTED, HOOK_EXIT, HOOK_INPUT_TOO_LARGE, HOOK_INVALID_OUTPUT,
                               HOOK_OUTPUT_TOO_LARGE, HOOK_SPAWN, HOOK_TIMEOUT)
from ..tools import procgroup
from ..tools.sandbox.env import child_env
from .load import LoadedHook
from .manifest import inside_path
from .response import InvalidOutput, parse_response

MAX_INPUT_BYTES = 1024 * 1024
MAX_OUTPUT_BYTES = 64 * 1024
DENY_EXIT = 2
CLEANUP_WINDOW_S = 0.5

Outcome = Literal["continued", "denied", "error"]


@dataclass(frozen=True)
class HookRun:
    """The result of one hook run: the outcome, and for errors the failure code."""

    outcome: Outcome
    duration_ms: int
    code: str | None = None  # spawn | timeout | exit | invalid_output | output_too_large | ...
    reason: str | None = None  # the hook's reason (a deny)
    message: str | None = None  # the hook's message, shown to the user
    detail: str | None = None  # why it failed, for people (`exit status 1`, a decode error)
    returncode: int | None = None
    stderr: bytes = b""

    @property
    def decision(self) -> str | None:
        return {"continued": "continue", "denied": "deny"}.get(self.outcome)


def hook_argv(hook: LoadedHook, workdir: Path) -> list[str]:
    """`command` and `args`, with `./` paths resolved inside the materialised folder."""
    manifest = hook.manifest
    return [_resolve_arg(manifest.command, workdir)] + [_resolve_arg(a, workdir) for a in manifest.args]


def _resolve_arg(value: str, workdir: Path) -> str:
    rel = inside_path(value) if value.startswith("./") else None
    return str(workdir / rel) if rel is not None else value


async def run_hook(
    hook: LoadedHook,
    payload: bytes,
    *,
    gate: bool,
    cwd: str,
    cancel: asyncio.Event | None = None,
) -> HookRun:
    """Run `hook` once with `payload` (one encoded JSON object, no newline).

    `gate` is True for UserPromptSubmit and PreToolUse. Setting `cancel` ends the hook
    (`aborted`). Never raises for anything the hook does.
    """
    started = time.monotonic()
    data = payload + b"\n"
    if len(data) > MAX_INPUT_BYTES:
        return _error(started, HOOK_INPUT_TOO_LARGE, f"payload is {len(data)} bytes (max {MAX_INPUT_BYTES})")
    if cancel is not None and cancel.is_set():
        return _error(started, HOOK_ABORTED, "cancelled before it started")
    try:
        argv = hook_argv(hook, hook.workdir())
        proc = await procgroup.spawn(argv, cwd=cwd, env=child_env(), stdin=data,
                                     merge_stderr=False)
    except OSError as exc:
        return _error(started, HOOK_SPAWN, f"cannot start {hook.manifest.command}: {exc.strerror or exc}")
    return await _supervise(proc, data, hook.manifest.timeout_ms / 1000, gate, cancel, started)


async def _supervise(proc, data: bytes, timeout_s: float, gate: bool,
                     cancel: asyncio.Event | None, started: float) -> HookRun:
    """Feed, read with the shared cap, wait for exit/timeout/cancel/overflow, then decide."""
    out = procgroup.Capture(MAX_OUTPUT_BYTES)
    err = procgroup.Capture(MAX_OUTPUT_BYTES)
    stop = asyncio.Event()  # set by the caller's cancel or by an output overflow
    readers = [asyncio.ensure_future(_pump(proc.stdout, out, out, err, stop)),
               asyncio.ensure_future(_pump(proc.stderr, err, out, err, stop))]
    helpers = [asyncio.ensure_future(procgroup.feed(proc, data))]
    if cancel is not None:
        helpers.append(asyncio.ensure_future(_relay(cancel, stop)))
    try:
        status = await _wait_exit(proc, timeout_s, stop)
        if status == "exited":
            await _clean_up(proc, readers)
            reaped = asyncio.ensure_future(proc.wait())  # let the transport finish
            await asyncio.wait([reaped], timeout=procgroup.KILL_GRACE_S)
            reaped.cancel()
        else:
            await procgroup.kill_tree(proc)
            await asyncio.wait(readers, timeout=procgroup.KILL_GRACE_S)
    except BaseException:
        procgroup.kill_tree_now(proc)
        raise
    finally:
        for task in readers + helpers:
            task.cancel()
    overflow = out.total + err.total > MAX_OUTPUT_BYTES
    return _decide(status, overflow, proc.returncode, bytes(out.head), bytes(err.head), gate, started)


async def _clean_up(proc, readers: list[asyncio.Future]) -> None:
    """The hook exited: read its output to the end and give what it left running the
    cleanup window to end; then end the tree."""
    window_ends = time.monotonic() + CLEANUP_WINDOW_S
    _, pending = await asyncio.wait(readers, timeout=CLEANUP_WINDOW_S)
    await procgroup.end_leftovers(proc, max(0.0, window_ends - time.monotonic()))
    if pending:
        await asyncio.wait(pending, timeout=procgroup.KILL_GRACE_S)


async def _wait_exit(proc, timeout_s: float, stop: asyncio.Event) -> str:
    """"exited" when the hook process exits (even if something it left behind still holds its
    pipes: asyncio's `proc.wait()` alone would wait for those), "cancelled" or "timeout"."""
    finished = asyncio.ensure_future(proc.wait())  # exit and pipes closed: the common case
    leader = asyncio.ensure_future(_leader_exit(proc))
    stopped = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait({finished, leader, stopped}, timeout=timeout_s,
                                     return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (finished, leader, stopped):
            task.cancel()
    if finished in done or leader in done:
        return "exited"
    return "cancelled" if stopped in done else "timeout"


async def _leader_exit(proc, interval_s: float = 0.05) -> None:
    while proc.returncode is None:
        await asyncio.sleep(interval_s)


async def _pump(stream, capture, out, err, stop: asyncio.Event) -> None:
    """Read one pipe to its end (keeping at most the cap); when stdout and stderr together pass
    the cap, ask for the end. Draining past the cap lets the pipe see EOF once the group dies."""
    while data := await stream.read(procgroup.READ_CHUNK):
        capture.add(data)
        if out.total + err.total > MAX_OUTPUT_BYTES:
            stop.set()


async def _relay(cancel: asyncio.Event, stop: asyncio.Event) -> None:
    await cancel.wait()
    stop.set()


def _decide(status: str, overflow: bool, returncode: int | None, stdout: bytes, stderr: bytes,
            gate: bool, started: float) -> HookRun:
    if overflow:
        return _error(started, HOOK_OUTPUT_TOO_LARGE,
                      f"stdout and stderr passed {MAX_OUTPUT_BYTES} bytes", returncode, stderr)
    if status == "timeout":
        return _error(started, HOOK_TIMEOUT, "did not finish in time", returncode, stderr)
    if status == "cancelled":
        return _error(started, HOOK_ABORTED, "cancelled", returncode, stderr)
    if returncode == DENY_EXIT and gate:
        return _denied_by_exit(stdout, stderr, returncode, started)
    if returncode != 0:
        return _error(started, HOOK_EXIT, _exit_text(returncode), returncode, stderr)
    try:
        response = parse_response(stdout, gate=gate)
    except InvalidOutput as exc:
        return _error(started, HOOK_INVALID_OUTPUT, str(exc), returncode, stderr)
    outcome: Outcome = "denied" if response.decision == "deny" else "continued"
    return HookRun(outcome, _ms(started), reason=response.reason, message=response.message,
                   returncode=returncode, stderr=stderr)


def _denied_by_exit(stdout: bytes, stderr: bytes, returncode: int, started: float) -> HookRun:
    """Exit 2 on a gate event denies whatever stdout says; a valid response lends its texts."""
    try:
        response = parse_response(stdout, gate=True)
    except InvalidOutput:
        return HookRun("denied", _ms(started), returncode=returncode, stderr=stderr)
    return HookRun("denied", _ms(started), reason=response.reason, message=response.message,
                   returncode=returncode, stderr=stderr)


def _exit_text(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def _error(started: float, code: str, detail: str, returncode: int | None = None,
           stderr: bytes = b"") -> HookRun:
    return HookRun("error", _ms(started), code=code, detail=detail, returncode=returncode,
                   stderr=stderr)


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)

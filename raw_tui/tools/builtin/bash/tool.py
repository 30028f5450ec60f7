"""builtin/bash: run shell commands in order (docs/gate.md).

Arguments `{commands: [{command, timeout_ms?}]}`, 1–16 commands. Each runs as
`bash -c COMMAND` in `ctx.cwd`, in a new process group, stdin `/dev/null`, stdout and stderr
merged (raw_tui.tools.procgroup). `timeout_ms` defaults to 120000, at most 600000. On a
timeout, or when `ctx.cancelled` is set, every process the command started (its group, its
descendants, and those that double-forked into a new session) gets SIGTERM, then SIGKILL
500 ms later. After a normal exit, processes still holding the output are ended; a daemon
whose output goes elsewhere is kept. Commands do not share a shell: `cd` or variables do
not carry over.

Running stops at the first command that exits non-zero, times out or is cancelled; the
result then is an error (`tool_error`, or `cancelled`) and says how many commands did not
run. Each command shows as `$ COMMAND`, its output, and `exit N` / `timed out after N ms` /
`cancelled`. Output: 64 KiB kept per command (head and tail); what is shown is fitted to the
output budget (the agent's `max_output_bytes` when the context carries it, else 8 KiB),
keeping a third from the head and two thirds from the tail, with a `[... N bytes cut ...]`
line where bytes were left out.

In a sandbox (`ctx.sandbox`, docs/sandbox.md) each command runs inside the boundary that
object gives (its argv and environment), and the result says how many background processes
ended with the command; the sandbox decides whether the commands run at all (a dry run's
layer is committed instead). Without one (mode off) the environment still lacks the model's
`api_key_env` variables (raw_tui.tools.sandbox.env).

While a command runs its output also goes to `ctx.output` as it arrives (the `$ COMMAND`
line first): the UI shows it live. That changes nothing the model reads.
"""

from __future__ import annotations

from raw_tui.tools.strict import strict_error

import codecs
from typing import Any, Callable

from raw_tui.protocol.errors import CANCELLED, TOOL_ERROR
from raw_tui.tools import procgroup
from raw_tui.tools.sandbox.env import child_env

MAX_COMMANDS = 16
DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
KEEP_BYTES = 64 * 1024
DEFAULT_BUDGET = 8192
MIN_SHARE = 256
MAX_ECHO = 300
STATUS_ROOM = 160  # the cut line, the status line, the separator and the "stopped" line
COMMAND_KEYS = {"command", "timeout_ms"}


def validate_args(args: Any) -> str | None:
    problem = strict_error('bash', args)
    if problem:
        return problem
    if not isinstance(args, dict) or not isinstance(args.get("commands"), list):
        return None
    commands = args["commands"]
    if not 1 <= len(commands) <= MAX_COMMANDS:
        return f"commands: {len(commands)} items; give 1 to {MAX_COMMANDS}"
    for i, item in enumerate(commands):
        problem = check_command(item) if isinstance(item, dict) else None
        if problem:
            return f"commands[{i}]: {problem}"
    return None


def check_command(item: dict[str, Any]) -> str | None:
    extra = sorted(set(item) - COMMAND_KEYS)
    if extra:
        return f"unknown field {', '.join(extra)}"
    command = item.get("command")
    if isinstance(command, str) and (not command.strip() or "\0" in command):
        return "command is empty or holds a NUL character"
    timeout = item.get("timeout_ms")
    if isinstance(timeout, int) and not isinstance(timeout, bool) \
            and not 1 <= timeout <= MAX_TIMEOUT_MS:
        return f"timeout_ms must be 1 to {MAX_TIMEOUT_MS}"
    return None


async def handler(args: Any, ctx: Any) -> dict[str, Any]:
    box = ctx.sandbox  # raw_tui.tools.sandbox.call.SandboxCall
    if box is not None:
        return await box.handle(args, ctx, run_commands)
    return await run_commands(args, ctx, None)


async def run_commands(args: Any, ctx: Any, box: Any) -> dict[str, Any]:
    """Every command in order; in the sandbox `box` (its argv and environment) when given."""
    commands = list(args["commands"])
    budget = ctx.max_output_bytes or DEFAULT_BUDGET
    slot = budget // len(commands)
    parts: list[str] = []
    code = None
    for i, item in enumerate(commands):
        if ctx.cancelled.is_set():
            code = CANCELLED
            parts.append(f"{echo(item['command'])}cancelled")
        else:
            part, code = await run_one(item, ctx, slot, box)
            parts.append(part)
        if code is not None:
            left = len(commands) - i - 1
            if left:
                parts.append(f"(stopped: {left} later command{'s' if left > 1 else ''} not run)")
            break
    result: dict[str, Any] = {"isError": code is not None,
                              "content": [{"type": "text", "text": "\n\n".join(parts)}]}
    if code is not None:
        result["code"] = code
    return result


def echo(command: str) -> str:
    """The `$ COMMAND` line (a long command is shown cut: the model knows what it sent)."""
    if len(command) > MAX_ECHO:
        command = command[:MAX_ECHO] + "…"
    return f"$ {command}\n"


async def run_one(item: Any, ctx: Any, slot: int, box: Any = None) -> tuple[str, str | None]:
    """One command's text, and the error code that stops the run (None when it exited 0).
    The text stays within `slot` bytes unless the slot is below MIN_SHARE."""
    command = item["command"]
    head = echo(command)
    share = max(MIN_SHARE, slot - len(head.encode()) - STATUS_ROOM)
    timeout_ms = item.get("timeout_ms", DEFAULT_TIMEOUT_MS)
    live = ctx.output
    if live is not None:
        live(head)
    show_live = live_decoder(live)
    try:
        argv = box.argv(command) if box is not None else ["bash", "-c", command]
        env = box.env() if box is not None else child_env()
        res = await procgroup.run(argv, cwd=ctx.cwd, env=env,
                                  timeout_s=timeout_ms / 1000, cancel=ctx.cancelled,
                                  cap=KEEP_BYTES, keep_tail=True, on_output=show_live)
    except OSError as err:
        return f"{head}cannot start bash: {err}", TOOL_ERROR
    finally:
        if show_live is not None:
            show_live(b"", final=True)
    text = f"{head}{show_output(res.stdout, share)}"
    if res.status == "timeout":
        return f"{text}timed out after {timeout_ms} ms", TOOL_ERROR
    if res.status == "cancelled":
        return f"{text}cancelled", CANCELLED
    status = exit_line(res.returncode)
    if res.ended_leftovers:
        status += " (background processes still holding the output were ended)"
    ended = box.background() if box is not None else 0
    if ended:
        status += (f"\n{ended} background process{'es' if ended > 1 else ''} ended with the "
                   "command")
    return f"{text}{status}", None if res.returncode == 0 else TOOL_ERROR


def live_decoder(live: Callable[[str], None] | None):
    """Bytes as they arrive → text for `ctx.output` (a character cut between two reads is
    kept for the next); None when there is no live output."""
    if live is None:
        return None
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def show(data: bytes, final: bool = False) -> None:
        text = decoder.decode(data, final)
        if text:
            live(text)

    return show


def exit_line(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        return f"killed by signal {-returncode}"
    return f"exit {returncode}"


def show_output(capture: procgroup.Capture, share: int) -> str:
    """The kept output fitted to `share` bytes: a third from the head, the rest from the tail
    (never across the place procgroup already cut), and a line saying how many bytes were
    left out. Ends with a newline when not empty."""
    head, tail, cut = bytes(capture.head), bytes(capture.tail), capture.cut
    if len(head) + len(tail) > share:
        data = head + tail
        tail_n = min(len(tail) if cut else len(data), share - share // 3)
        head_n = share - tail_n
        cut += len(data) - head_n - tail_n
        head, tail = data[:head_n], data[len(data) - tail_n:]
    if cut:
        first = decode(head)
        if first and not first.endswith("\n"):
            first += "\n"
        text = f"{first}[... {cut} bytes cut ...]\n{decode(tail)}"
    else:
        text = decode(head + tail)
    if text and not text.endswith("\n"):
        text += "\n"
    return text


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def summarize(args: Any, ctx: Any) -> str:
    """`bash: FIRST COMMAND` (+N more): the call's line in the chat (tools/summary.py)."""
    commands = [c.get("command", "") for c in args.get("commands") or []]
    more = f"  (+{len(commands) - 1} more)" if len(commands) > 1 else ""
    return f"bash: {' '.join(str(commands[0]).split()) if commands else ''}{more}"

"""One tool call in the chat: name, identity, the decision (allowed, asking, asked by which
rule, approved or denied, denied by a rule or a hook), arguments, intended effects and the
result with its code, collapsed when long (Enter expands).

While the call runs the row moves: a spinner, the time it has run, and the last lines of its
output as they arrive (`tool_output`). The timer that drives this exists only while the call
runs (a live `tool_call` allowed by the policy, an approval granted, or live output); it stops
at the result or the end of the turn, so an idle screen sends nothing to the terminal."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.text import Text

from ...protocol.errors import APPROVAL_DENIED, DENIAL_CODES
from ...protocol.termsafe import escape_controls
from ..neutral import json_text
from ..preview import effect_lines
from .safe import SafeStatic

if TYPE_CHECKING:
    from ...protocol import bus as ev

COLLAPSED_LINES = 3
LIVE_KEEP_CHARS = 8192  # the running output kept on screen (its tail)
LIVE_LINES = 6  # of which this many lines show (all kept ones when expanded)
TICK_S = 0.25  # spinner frame; the elapsed time changes once a second
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ARGS_CLIP = 160


def result_text(content: Any) -> str:
    parts = []
    for block in content or ():
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") == "json":
            parts.append(json_text(block.get("value"), indent=1))
        else:
            parts.append(json_text(block))
    return "\n".join(parts)


def progress_text(event: ev.ToolProgress) -> str:
    """`3/10 · step 3` from a ToolProgress event."""
    done = f"{event.progress:g}" + (f"/{event.total:g}" if event.total is not None else "")
    return done + (f" · {event.message}" if event.message else "")


def elapsed_text(seconds: float) -> str:
    """`7s`, `1m05s`, `1h02m`."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


def output_lines(text: str) -> list[str]:
    """Terminal output as lines to draw (its colour and cursor sequences were dropped as it
    came in: ui/neutral.py): a line rewritten with `\\r` (a progress counter) shows its last
    state, other controls escaped."""
    text = text.replace("\r\n", "\n")
    lines = [next((part for part in reversed(line.split("\r")) if part), "")
             for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return [escape_controls(line.replace("\t", "    "), keep_lines=False) for line in lines]


class ToolCallView(SafeStatic):
    def __init__(self, call_id: str, identity: str = "", name: str = "") -> None:
        super().__init__(classes="chat-item tool-call")
        self.call_id = call_id
        self.identity = identity
        self.tool_name = name
        self.arguments: Any = None
        self.summary: str | None = None  # the engine's one line of what the call does
        self.effects: Any = None
        self.preview: Any = None  # the approval_request's preview (symlink warnings)
        self.asked = False
        self.rule: int | None = None
        self.allowed: bool | None = None  # the approval answer
        self.result: ev.ToolResultEvent | None = None
        self.progress: ev.ToolProgress | None = None  # the last one while it runs
        self.policy: str | None = None  # the tool_call's verdict: allow | ask
        self.live_output = ""  # the tail of the output so far, while it runs
        self.started: float | None = None  # when it began to run (monotonic), live only
        self.ticker: Any = None  # the timer moving the spinner, only while it runs
        self.expanded = False

    # the events of its call --------------------------------------------------------------
    def tool_call(self, event: ev.ToolCall, *, live: bool = False) -> None:
        self.identity, self.tool_name = event.identity, event.name
        self.arguments, self.effects = event.arguments, event.effects
        self.summary, self.policy = event.summary, event.policy
        if event.rule is not None:
            self.rule = event.rule
        if live and self.policy == "allow":
            self.start_running()
        self._changed()

    def approval_request(self, event: ev.ApprovalRequest) -> None:
        self.asked = True
        self.rule, self.preview = event.rule, event.preview
        if self.arguments is None:
            self.identity, self.tool_name = event.identity, event.name
            self.arguments, self.effects = event.arguments, event.effects
        self._changed()

    def approval_decision(self, event: ev.ApprovalDecision, *, live: bool = False) -> None:
        self.allowed = event.allow
        if live and event.allow:
            self.start_running()
        self._changed()

    def tool_result(self, event: ev.ToolResultEvent) -> None:
        self.result = event
        self.live_output = ""
        self.stop_running()
        self._changed()

    def tool_output(self, event: ev.ToolOutput) -> None:
        """Live output (never replayed): its tail is kept and the call is running."""
        gap = f"[… {event.cut} bytes not shown …]\n" if event.cut else ""
        self.live_output = (self.live_output + gap + event.text)[-LIVE_KEEP_CHARS:]
        self.start_running()
        self._changed()

    # running: the spinner and the elapsed time ---------------------------------------------
    @property
    def running(self) -> bool:
        return self.started is not None and self.result is None

    def start_running(self) -> None:
        if self.result is not None:
            return
        if self.started is None:
            self.started = time.monotonic()
        if self.ticker is None and self.is_mounted:
            self.ticker = self.set_interval(TICK_S, self._tick)

    def stop_running(self) -> None:
        """Stop the timer (the result came, the turn ended, the row went away)."""
        if self.ticker is not None:
            self.ticker.stop()
            self.ticker = None
        if self.result is None and self.started is not None:
            self.started = None  # ended without a result: not running any more
            self._changed()

    def _tick(self) -> None:
        if self.running:
            self.rebuild()
        else:
            self.stop_running()

    def on_mount(self) -> None:
        super().on_mount()
        if self.running:
            self.start_running()

    def on_unmount(self) -> None:
        if self.ticker is not None:
            self.ticker.stop()
            self.ticker = None

    def tool_progress(self, event: ev.ToolProgress) -> None:
        self.progress = event
        self._changed()

    def toggle(self) -> None:
        self.expanded = not self.expanded
        self._changed()

    def _changed(self) -> None:
        if self.is_mounted:
            self.rebuild()

    # drawing ------------------------------------------------------------------------------
    def decision(self) -> tuple[str, str]:
        code = self.result.code if self.result else None
        rule = f" by rule #{self.rule}" if self.rule is not None else ""
        if code in DENIAL_CODES and code != APPROVAL_DENIED:
            return f"denied · {code}", "bold red"
        if self.asked:
            if self.allowed is None and code != APPROVAL_DENIED and self.result is not None:
                return f"asked{rule} → not answered ({code or 'ended'})", "bold red"
            if self.allowed is None and code != APPROVAL_DENIED:
                return f"asking{rule} · waiting for approval", "bold magenta"
            if self.allowed is False or code == APPROVAL_DENIED:
                return f"asked{rule} → denied", "bold red"
            return f"asked{rule} → approved", "green"
        if self.policy == "ask" and self.result is None:
            return f"asking{rule}", "bold magenta"  # the approval request is on its way
        return "allowed", "green"

    def running_text(self) -> Text:
        """`⠹ running 12s`, from the monotonic clock (each tick redraws it)."""
        seconds = time.monotonic() - (self.started or time.monotonic())
        frame = SPINNER[int(seconds / TICK_S) % len(SPINNER)]
        return Text(f"  {frame} running {elapsed_text(seconds)}", style="bold yellow")

    def build(self) -> Group:
        head = Text("⚙ ", style="bold")
        mcp = self.identity.split("/") if self.identity.startswith("mcp/") else None
        if self.summary:  # the engine's line of what the call does (tools/summary.py)
            head.append(self.summary, style="bold")
        elif mcp is not None and len(mcp) == 3:  # the server's own tool name, then the server
            head.append(mcp[2], style="bold")
            head.append(f" · {mcp[1]}", style="bold cyan")
        else:
            head.append(self.tool_name or "?", style="bold")
        head.append(f"  {self.identity}", style="dim")
        label, style = self.decision()
        head.append("  " + label, style=style)
        if self.running:
            head.append_text(self.running_text())
        lines: list[Text] = [head]
        if self.arguments is not None and self.summary and not self.expanded:
            pass  # the summary says it; the arguments are a key away (Enter)
        elif self.arguments is not None:
            args = json_text(self.arguments)
            if not self.expanded and len(args) > ARGS_CLIP:
                args = args[:ARGS_CLIP - 1] + "…"
            lines.append(Text("  args ", style="dim") + Text(args))
        for effect in effect_lines(self.effects, self.preview):
            line = Text("  effect ", style="dim")
            line.append(f"{effect.operation} ", style="yellow")
            line.append(effect.path)
            if effect.symlinks:
                line.append("  ⚠ via symlink", style="bold red")
            lines.append(line)
        if self.result is not None:
            lines.extend(self._result_lines())
            return Group(*lines)
        if self.progress is not None:
            lines.append(Text("  … " + progress_text(self.progress), style="dim"))
        if self.live_output:
            lines.extend(self._live_lines())
        return Group(*lines)

    def _live_lines(self) -> list[Text]:
        """The last lines of the output so far (all that is kept when expanded)."""
        body = output_lines(self.live_output)
        shown = body if self.expanded else body[-LIVE_LINES:]
        out = []
        if len(body) > len(shown):
            out.append(Text(f"  │ … {len(body) - len(shown)} earlier lines", style="dim italic"))
        out.extend(Text("  │ ", style="dim") + Text(line, style="dim") for line in shown)
        return out

    def _result_lines(self) -> list[Text]:
        r = self.result
        code = r.code
        body = result_text(r.content).rstrip("\n").split("\n")
        mark = Text("  ✘ " if r.isError else "  ✔ ", style="red" if r.isError else "green")
        if code and body[:1] == [code]:
            body = body[1:]  # the text only repeats the code
        if code:
            mark.append(f"{code} ", style="bold red" if r.isError else "dim")
        if r.truncated:
            mark.append("(truncated) ", style="dim")
        out = [mark + Text(body[0] if body else "")]
        rest = body[1:]
        shown = rest if self.expanded else rest[:COLLAPSED_LINES - 1]
        out.extend(Text("    " + line) for line in shown)
        if len(rest) > len(shown):
            out.append(Text(f"    … {len(rest) - len(shown)} more lines (Enter expands)",
                            style="dim italic"))
        return out

    def plain_text(self) -> str:
        args = json_text(self.arguments)
        name = self.summary or self.tool_name
        out = [f"{name} ({self.identity}) {self.decision()[0]}", f"args: {args}"]
        out += [f"effect: {e.operation} {e.path}"
                for e in effect_lines(self.effects, self.preview)]
        if self.result is not None:
            out.append(result_text(self.result.content))
        return "\n".join(out)

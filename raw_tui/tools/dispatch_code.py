"""How dispatch runs a tool's own code (tools/dispatch.py): its `ctx`, its module imported
at first use, its synchronous code in a worker thread under a deadline, and the waits a
cancel cuts short."""

from __future__ import annotations

from typing import Any, Callable

from ..protocol import bus as ev
from ..protocol import errors
from ..cancel import Cancelled, unless_cancelled
from . import worker
from .context import ToolContext
from .dispatch_state import Deadlines, Stop, _Call
from .live_output import LiveOutput
from .ports import CallInfo, ToolPanels


class ToolCode:
    """The tool code of a call; a part of `Dispatcher`."""

    bus: ev.Bus
    cwd: str
    panels: ToolPanels | None
    interactions: Callable[..., Any] | None
    max_output_bytes: int
    deadlines: Deadlines
    _turn: Callable[[_Call], dict[str, Any]]  # dispatch_events.CallEvents

    def _apply_panel_blocks(self, call_panels, blocks: list[dict[str, Any]], *,
                            only: bool) -> list[str]:
        """Apply result panel blocks; the lines the model reads: rejections, and when the
        result held only panel blocks, the confirmation line of each updated panel."""
        if call_panels is None or not blocks:
            return []
        lines = call_panels.apply_result_blocks(blocks)
        if only:
            lines = call_panels.confirmation_lines() + lines
        return lines

    def _context(self, call: _Call, *, pure: bool = False) -> ToolContext:
        """`ctx` for the handler; `pure` (for describe_effects) gives no panels and no
        interactions: an effects descriptor must not change anything."""
        tool = call.tool
        panels = None
        if self.panels is not None and not pure:
            panels = self.panels.open_call(owner=tool.identity, declarations=tool.declarations,
                                           call_id=call.call_id, source=call.source,
                                           turn_id=call.turn_id,
                                           implicit=tool.implicit_panels)
        interactions = None
        if self.interactions is not None and not pure:
            interactions = self.interactions(call_id=call.call_id, turn_id=call.turn_id,
                                             cancel=call.cancel, owner=tool.identity,
                                             declarations=tool.declarations)
        return ToolContext(cwd=self.cwd, tool_call_id=call.call_id, source=call.source,
                           effects=call.effects, cancelled=call.cancel, panels=panels,
                           interactions=interactions, identity=tool.identity,
                           turn_id=call.turn_id, max_output_bytes=self.max_output_bytes,
                           preview=None if pure else call.preview,
                           progress=None if pure else self._progress(call),
                           output=None if pure else self._live_output(call),
                           sandbox=None if pure else call.sandbox)

    def _progress(self, call: _Call) -> Callable[[float, float | None, str | None], None]:
        """`ctx.progress(done, total, message)`: a `tool_progress` event (MCP progress)."""

        def report(done: float, total: float | None = None, message: str | None = None) -> None:
            extra: dict[str, Any] = {}
            if total is not None:
                extra["total"] = total
            if message:
                extra["message"] = message
            self.bus.publish(ev.ToolProgress(call_id=call.call_id, progress=done, **extra,
                                             **self._turn(call)))

        return report

    def _live_output(self, call: _Call) -> LiveOutput:
        """`ctx.output(text)`: the running call's output as it arrives, as throttled
        `tool_output` events (raw_tui.tools.live_output)."""

        def publish(text: str, cut: int) -> None:
            self.bus.publish(ev.ToolOutput(call_id=call.call_id, text=text, cut=cut,
                                           **self._turn(call)))

        return LiveOutput(publish, self.bus.redactor.stream())

    def _call_info(self, call: _Call) -> CallInfo:
        """The call as hooks see it (its arguments and effects are settled before hooks run):
        made once, for PreToolUse and PostToolUse."""
        if call.info is None:
            call.info = CallInfo(identity=call.tool.identity, name=call.tool.name,
                                 call_id=call.call_id, arguments=call.arguments,
                                 effects=call.effects, has_effects=call.tool.has_effects,
                                 source=call.source, turn_id=call.turn_id)
        return call.info

    async def _module(self, call: _Call) -> Any:
        """The tool's entry module, imported at first use in a worker thread under
        `deadlines.load_s` (its top-level code may block or spin: the loop goes on, a cancel
        or a signal ends the wait). Past the deadline, the stage's Stop (see `_stage_error`).
        An MCP tool, or one already imported, costs nothing."""
        tool = call.tool
        if tool.loaded:
            return tool.module()
        try:
            return await self._tool_code(call, "the import of its module", self.deadlines.load_s,
                                         tool.module)
        except worker.Overdue as late:
            raise self._stage_error(call, f"its module did not load within {late.seconds:g} s") \
                from None

    def _stage_error(self, call: _Call, why: str) -> Stop:
        """The Stop of the current stage for `why`, as its own failures read."""
        stage, name = call.report.stage, call.tool.name
        if stage == "validation":
            return Stop(stage, errors.INVALID_ARGUMENTS, f"invalid arguments: {why}")
        if stage == "effects":
            return Stop(stage, errors.EFFECTS_ERROR, f"cannot describe {name}: {why}")
        return Stop(stage, errors.TOOL_ERROR, f"{name} failed: {why}")

    async def _tool_code(self, call: _Call, what: str, deadline_s: float, fn, *args: Any,
                         grace_s: float = 0.0) -> Any:
        """Run the tool's synchronous `fn` in a worker thread (raw_tui.tools.worker): its
        value, `worker.Overdue` after `deadline_s`, or a `cancelled` Stop. Code left running
        is said in a warning notice."""
        try:
            return await worker.run_in_worker(fn, *args, deadline_s=deadline_s,
                                              cancel=call.cancel, grace_s=grace_s)
        except worker.Overdue as late:
            self._left_running(call, what, str(late))
            raise
        except Cancelled:
            self._left_running(call, what, "was cancelled")
            raise Stop(call.report.stage, errors.CANCELLED, "cancelled") from None

    def _left_running(self, call: _Call, what: str, why: str) -> None:
        self.bus.publish(ev.Notice(
            level="warning", message=f"{call.tool.name}: {what} {why} and is left running in "
            f"its thread ({worker.stuck()} left running)", **self._turn(call)))

    def _check_cancel(self, call: _Call) -> None:
        if call.cancel.is_set():
            raise Stop(call.report.stage, errors.CANCELLED, "cancelled")

    async def _until_cancelled(self, call: _Call, awaitable) -> Any:
        """Await `awaitable` unless the call is cancelled first (then it is cancelled too)."""
        try:
            return await unless_cancelled(awaitable, call.cancel)
        except Cancelled:
            raise Stop(call.report.stage, errors.CANCELLED, "cancelled") from None

"""Dispatch: every tool call through the seven steps of the contract, in order.

1. check_exposure       tool_not_exposed / tool_denied
2. validate_arguments   invalid_arguments
3. prepare_effects      invalid_effects / effects_error
4. evaluate_policy      (decides allow or ask)
5. run_pre_tool_hooks   hook_denied / hook_error
   observe_effects      (bash in a sandbox: its dry run, rules on what it did, the gate's
                        own files; docs/sandbox.md) sandbox_unavailable / tool_denied
6. ask_approval         approval_required / approval_denied / approval_error
7. run_handler          tool_error

A failure at any step stops the call before the next. Each step is a method named after it;
each failure is a `Stop` carrying the code and text of docs/gate.md. What a call publishes is
in tools/dispatch_events.py, how its tool code runs in tools/dispatch_code.py, its state in
tools/dispatch_state.py.

The tool's synchronous code (the import of its module at first use, `validate_args`,
`describe_effects`, a plain `handler`) runs in a worker thread, never on the event loop, under
`Deadlines` (5 s, 5 s, 5 s, 600 s): past it the call stops with the stage's code
(invalid_arguments / effects_error / tool_error); a cancel stops the wait at once (a plain
handler gets 2 s to see `ctx.cancelled` and return). Code left running is said in a warning
notice (raw_tui.tools.worker). Whatever tool code raises, `SystemExit` and
`KeyboardInterrupt` included, is that call's error, never the end of the process.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
from typing import Any, Callable

import msgspec

from ..protocol import bus as ev
from ..protocol import errors
from ..approval import Approver
from ..contract.schema import first_error
from ..frozen import freeze
from . import approval_preview, summary, worker
from .context import ToolContext
from .dispatch_code import ToolCode
from .dispatch_events import CallEvents
from .dispatch_state import Deadlines, DispatchReport, Stop, _Call, _not_json, _text
from .ports import NoHooks, ToolHooks, ToolPanels
from .result import ToolResult, cap_output, error_result, normalize, split_panel_blocks, text_block

__all__ = ["Deadlines", "DispatchReport", "Dispatcher", "Stop"]

MAX_EFFECTS_BYTES = 64 * 1024


class Dispatcher(CallEvents, ToolCode):
    """Puts calls through the gate of one agent. The UI and headless runs share it."""

    def __init__(self, agent, *, bus: ev.Bus | None = None, cwd: str,
                 hooks: ToolHooks | None = None, approver: Approver | None = None,
                 panels: ToolPanels | None = None,
                 interactions: Callable[..., Any] | None = None,
                 deadlines: Deadlines | None = None, preview_calls: bool = False) -> None:
        self.agent = agent
        self.bus = bus or ev.Bus()
        self.cwd = cwd
        self.hooks = hooks or NoHooks()
        self.approver = approver
        self.panels = panels
        # (call_id=, turn_id=, cancel=, owner=, declarations=) -> ctx.interactions
        self.interactions = interactions
        self.max_output_bytes = agent.config.max_output_bytes
        # validate_args, describe_effects and plain handlers run in worker threads under
        # these deadlines, never on the event loop
        self.deadlines = deadlines or Deadlines()
        self.preview_deadline = approval_preview.DEADLINE_S
        # an ACP client shows the diff of every write: each call of a tool with a preview
        # carries it on its tool_call event (bounded as for an approval; the handler is
        # given a preview only when the user approved it, so nothing written changes)
        self.preview_calls = preview_calls
        # a session's checkpoints (raw_tui.checkpoints.record.Recorder), None for `raw-tui call`
        self.checkpoints: Any = None

    async def dispatch(self, name: str, arguments: Any, *, call_id: str, source: str = "model",
                       turn_id: str | None = None, cancel: asyncio.Event | None = None,
                       dry_run: bool = False) -> DispatchReport:
        call = _Call(name=name, raw_arguments=arguments, call_id=call_id, source=source,
                     turn_id=turn_id, cancel=cancel or asyncio.Event(), dry_run=dry_run)
        report = DispatchReport(outcome="stopped", stage="exposure", result=ToolResult())
        call.report = report
        try:
            self.check_exposure(call)
            await self.validate_arguments(call)
            await self.prepare_effects(call)
            await self.preview_call(call)
            self.evaluate_policy(call)  # before the tool_call event, which says the verdict
            await self.summarize_call(call)
            self._publish_call(call)
            await self.run_pre_tool_hooks(call)
            await self.observe_effects(call)
            await self.ask_approval(call)
            if dry_run:
                report.outcome = "would_run"
                return report
            report.stage = "handler"
            if self.checkpoints is not None:  # docs/checkpoints.md
                self.checkpoints.before_handler(call)
            await self.run_handler(call)
            if self.checkpoints is not None:
                self.checkpoints.after_handler(call)
            self._publish_file_changes(call)
        except Stop as stop:
            self._stopped(call, stop)
        finally:
            if call.sandbox is not None:
                call.sandbox.close()  # a layer not committed is thrown away
        return report

    # 1 ------------------------------------------------------------------------------
    def check_exposure(self, call: _Call) -> None:
        report = call.report
        tool = self.agent.tools.find(call.name)
        # an MCP tool whose server has not started, or has ended
        if tool is None or not tool.available:
            raise Stop("exposure", errors.TOOL_NOT_EXPOSED, f"tool unavailable: {call.name}")
        call.tool = tool
        report.identity, report.name = tool.identity, tool.name
        effect, index = self.agent.rules.unconditional(tool.identity)
        if effect == "deny":
            report.rule, report.rule_index = "deny", index
            raise Stop("exposure", errors.TOOL_DENIED, f"tool denied: {tool.identity}")

    # 2 ------------------------------------------------------------------------------
    async def validate_arguments(self, call: _Call) -> None:
        call.report.stage = "validation"
        tool, args = call.tool, call.raw_arguments
        not_json = _not_json(args)  # not a JSON value at all: nothing else can judge it
        if not_json:
            raise Stop("validation", errors.INVALID_ARGUMENTS, f"invalid arguments: {not_json}")
        custom = None
        if tool.has_validate_args:
            try:
                validate = getattr(await self._module(call), "validate_args", None)
                custom = None if validate is None else await self._tool_code(
                    call, "validate_args", self.deadlines.validate_s, validate,
                    copy.deepcopy(args))
            except worker.Overdue as late:
                raise Stop("validation", errors.INVALID_ARGUMENTS,
                           f"invalid arguments: validate_args {late}") from None
            except Stop:
                raise
            except Exception as err:  # a validator that raises rejects the call
                custom = worker.describe(err.error if isinstance(err, worker.Escaped) else err)
            if custom is not None and not isinstance(custom, str):
                custom = f"validate_args returned {type(custom).__name__}, not a string"
        try:
            schema_error = first_error(tool.validator, args)
            frozen = None if custom is not None or schema_error else freeze(args)  # a copy
        except RecursionError:
            schema_error = "$: nested too deeply"
        detail = custom if custom is not None else schema_error
        if detail is not None:
            raise Stop("validation", errors.INVALID_ARGUMENTS, f"invalid arguments: {detail}")
        call.arguments = frozen

    # 3 ------------------------------------------------------------------------------
    async def prepare_effects(self, call: _Call) -> None:
        call.report.stage = "effects"
        tool = call.tool
        if not tool.has_effects:
            return
        try:
            describe = (await self._module(call)).describe_effects
            value = await self._tool_code(call, "describe_effects", self.deadlines.effects_s,
                                          describe, call.arguments,
                                          self._context(call, pure=True))
        except worker.Overdue as late:
            raise Stop("effects", errors.EFFECTS_ERROR,
                       f"cannot describe {tool.name}: describe_effects {late}") from None
        except Stop:
            raise
        except Exception as err:
            raise Stop("effects", errors.EFFECTS_ERROR,
                       f"cannot describe {tool.name}: {_text(err)}") from None
        if inspect.isawaitable(value):
            if inspect.iscoroutine(value):
                value.close()
            raise Stop("effects", errors.INVALID_EFFECTS,
                       "effects descriptors must return synchronously")
        not_json = _not_json(value)  # too deep, not finite, a lone surrogate, a set ...
        if not_json:
            raise Stop("effects", errors.INVALID_EFFECTS,
                       f"invalid effects from {tool.name}: not JSON: {not_json}")
        data = json.dumps(value, ensure_ascii=False)
        size = len(data.encode("utf-8"))
        if size > MAX_EFFECTS_BYTES:
            raise Stop("effects", errors.INVALID_EFFECTS,
                       f"invalid effects from {tool.name}: {size} bytes, over {MAX_EFFECTS_BYTES}")
        value = json.loads(data)
        problem = first_error(tool.effects_validator, value)
        if problem:
            raise Stop("effects", errors.INVALID_EFFECTS,
                       f"invalid effects from {tool.name}: {problem}")
        call.effects = freeze(value)
        call.report.effects = call.effects

    # 4 ------------------------------------------------------------------------------
    def evaluate_policy(self, call: _Call) -> None:
        call.report.stage = "policy"
        effect, index = self.agent.rules.conditional(call.tool.identity, call.arguments,
                                                     call.effects)
        call.report.rule, call.report.rule_index = effect, index

    async def summarize_call(self, call: _Call) -> None:
        """The tool's own one-line summary for the tool_call event, when it has one; any
        failure of it leaves the generic line (tools/summary.py): a summary never stops a
        call."""
        tool = call.tool
        if not tool.has_summary:
            return
        ctx = self._context(call, pure=True)
        if self.panels is not None:
            ctx.panels = summary.OwnPanels(self.panels, tool.identity)
        try:
            value = await self._tool_code(call, "summarize", self.deadlines.effects_s,
                                          tool.module().summarize, call.arguments, ctx)
        except Stop:
            raise
        except Exception:  # noqa: BLE001 — overdue, raised, not importable: the generic line
            return
        if isinstance(value, str) and value.strip():
            call.summary = summary.one_line(value)

    # 5 ------------------------------------------------------------------------------
    async def run_pre_tool_hooks(self, call: _Call) -> None:
        call.report.stage = "hooks"
        self._check_cancel(call)
        try:
            outcome = await self.hooks.pre_tool_use(self._call_info(call), call.cancel)
        except Exception as err:  # the gate fails closed
            raise Stop("hooks", errors.HOOK_ERROR, f"PreToolUse hooks failed: {err}") from None
        call.report.receipts.extend(outcome.receipts)
        self._check_cancel(call)
        if not outcome.allowed:
            raise Stop("hooks", outcome.code or errors.HOOK_DENIED,
                       outcome.reason or "denied by a hook")

    # 6 ------------------------------------------------------------------------------
    async def ask_approval(self, call: _Call) -> None:
        report = call.report
        report.stage = "approval"
        if report.rule != "ask":
            return
        tool = call.tool
        report.approval_requested = True
        if call.sandbox is not None:
            call.sandbox.asked = True
        if self.approver is None:
            if call.sandbox is not None and call.sandbox.observed is not None:
                # headless: what the command would have changed, before approval_required
                self.bus.publish(self._approval_request(call, self._observed_preview(call)))
            raise Stop("approval", errors.APPROVAL_REQUIRED, f"approval required for {tool.name}")
        preview = self._observed_preview(call)
        if preview is None:
            preview = call.shown if call.shown is not None else await self._preview(call)
        request = self._approval_request(call, preview)
        self.bus.publish(request)
        try:
            allow = await self._until_cancelled(call, self.approver.approve(request))
        except Stop:
            raise
        except Exception as err:
            raise Stop("approval", errors.APPROVAL_ERROR,
                       f"approval failed for {tool.name}: {err}") from None
        allow = allow is True
        self.bus.publish(ev.ApprovalDecision(call_id=call.call_id, allow=allow,
                                             **self._turn(call)))
        if not allow:
            raise Stop("approval", errors.APPROVAL_DENIED, f"approval denied for {tool.name}")
        call.preview = preview

    # 5b -----------------------------------------------------------------------------
    async def observe_effects(self, call: _Call) -> None:
        """After the PreToolUse hooks, before the approval (docs/sandbox.md): a bash call in
        mode overlay runs in its layer (a dry run when it will be asked); `observed` rules
        judge what it did (a match denies or asks); a call whose effects — intended, or
        observed — touch the gate's own files is asked (`protected_path`)."""
        from .sandbox import step

        call.report.stage = "sandbox"
        self._check_cancel(call)
        await step.observe(self, call)
        if not self._ran_cancelled(call):
            self._check_cancel(call)

    def _ran_cancelled(self, call: _Call) -> bool:
        """An allowed bash call cancelled while it ran in its layer: it ran (its handler
        commits what it did, as a direct run would have left it, and says `cancelled`)."""
        return call.sandbox is not None and call.sandbox.cancelled

    def _observed_preview(self, call: _Call):
        from .sandbox import step

        return step.preview(call.sandbox)

    async def preview_call(self, call: _Call) -> None:
        """With `preview_calls`, the preview of a call whose tool has one, for its tool_call
        event (computed once: an `ask` shows the same)."""
        if self.preview_calls and call.tool is not None and call.tool.has_preview:
            call.shown = await self._preview(call)

    async def _preview(self, call: _Call) -> ev.ApprovalPreview | None:
        """What the call would change, for the one asked (approval_preview): the tool's
        `preview` off the event loop within `preview_deadline`; without one, the effects'
        files with their symlink warnings; None when there is nothing to show."""
        tool = call.tool
        if not tool.has_preview and not approval_preview.effect_files(call.effects):
            return None

        def preview(args: Any, ctx: ToolContext) -> Any:  # the module loads in the thread too
            return tool.module().preview(args, ctx)

        ctx = self._context(call, pure=True)
        return await self._until_cancelled(call, approval_preview.run_preview(
            preview if tool.has_preview else None, call.arguments, ctx, call.effects,
            deadline=self.preview_deadline))

    # 7 ------------------------------------------------------------------------------
    async def run_handler(self, call: _Call) -> None:
        tool, report = call.tool, call.report
        if not self._ran_cancelled(call):
            self._check_cancel(call)
        ctx = self._context(call)
        call_panels = ctx.panels
        try:
            try:
                await self._module(call)
                handler = tool.handler()
                if inspect.iscoroutinefunction(handler):
                    value = handler(call.arguments, ctx)
                else:  # off the loop; it may watch ctx.cancelled for CANCEL_GRACE_S
                    value = await self._tool_code(call, "the handler", self.deadlines.handler_s,
                                                  handler, call.arguments, ctx,
                                                  grace_s=self.deadlines.cancel_grace_s)
                if inspect.isawaitable(value):
                    value = await self._until_cancelled(call, value)
                result = normalize(value)
            except Stop as stop:  # cancelled while it ran: it ran, and failed
                result = error_result(stop.code, stop.message)
            except worker.Overdue as late:
                result = error_result(errors.TOOL_ERROR, f"{tool.name} failed: the handler {late}")
            except BaseException as err:  # an async handler's SystemExit too: the call's error
                if isinstance(err, asyncio.CancelledError):
                    raise
                err = worker.escaped(err)
                code = getattr(err, "code", None)
                result = error_result(code if isinstance(code, str) else errors.TOOL_ERROR,
                                      f"{tool.name} failed: {_text(err)}")
            result, blocks = split_panel_blocks(result)
            lines = self._apply_panel_blocks(call_panels, blocks, only=not result.content)
        finally:
            if call_panels is not None:
                call_panels.close()
            if ctx.output is not None:
                ctx.output.close()  # its last output goes out before the result
        info = self._call_info(call)
        try:  # notification hooks never change the result, even when they fail
            report.receipts.extend(await self.hooks.post_tool_use(info, result.to_dict(),
                                                                  call.cancel))
        except Exception as err:
            self.bus.publish(ev.Notice(level="error", message=f"PostToolUse hooks failed: "
                                       f"{type(err).__name__}: {err}", **self._turn(call)))
        result = cap_output(result, self.max_output_bytes)
        if lines:
            result = msgspec.structs.replace(
                result, content=result.content + [text_block(line) for line in lines])
        report.outcome = "ran"
        report.result = result
        if result.isError:
            report.code = result.code or errors.TOOL_ERROR
            report.message = result.text()
        self._publish_result(call, result)

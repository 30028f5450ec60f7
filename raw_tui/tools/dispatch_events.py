"""What dispatch publishes of a call (tools/dispatch.py): its tool_call, approval_request,
tool_result and file_changes events, and the report of a call a step stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ..protocol import bus as ev
from . import approval_preview, summary
from .dispatch_state import Stop, _Call, _replace_lone_surrogates
from .result import ToolResult, cap_output, error_result

if TYPE_CHECKING:
    from ..config import Agent


class CallEvents:
    """The events of a call; a part of `Dispatcher`."""

    agent: Agent
    bus: ev.Bus
    max_output_bytes: int

    def _approval_request(self, call: _Call, preview) -> ev.ApprovalRequest:
        tool, report = call.tool, call.report
        extra: dict[str, Any] = {}
        box = call.sandbox
        if box is not None and box.observed is not None:
            extra["observed"] = msgspec.convert(box.observed, ev.Observed)
        if call.reason:
            extra["reason"] = call.reason
        status = self._sandbox_status(call)
        if status:
            extra["sandbox"] = status
        return ev.ApprovalRequest(
            call_id=call.call_id, identity=tool.identity, name=tool.name,
            arguments=call.arguments, **self._effects_field(call), rule=report.rule_index,
            **({"preview": preview} if preview is not None else {}), **extra,
            **self._turn(call))

    def _sandbox_status(self, call: _Call) -> str | None:
        if call.tool is None or call.tool.identity != "builtin/bash":
            return None
        from .sandbox.settings import for_agent

        return for_agent(self.agent).status()

    def _publish_file_changes(self, call: _Call) -> None:
        """`file_changes` after the tool_result of a call that changed the user's files:
        write_file's writes, a bash layer's commit (docs/sandbox.md)."""
        report = call.report
        if call.tool is None or report.outcome != "ran":
            return
        if call.sandbox is not None:
            files = call.sandbox.committed
        elif call.tool.identity == "builtin/write_file" and not report.result.isError:
            files = [{"path": path, "operation": "delete" if "delete" in op else "write"}
                     for path, op in approval_preview.effect_files(call.effects)]
        else:
            return
        if files:
            self.publish_file_changes(call, files)

    def publish_file_changes(self, call: _Call, files: list[dict]) -> None:
        checkpoint = call.checkpoint
        if checkpoint is None and call.sandbox is not None:
            checkpoint = call.sandbox.checkpoint  # a bash layer's, taken at its commit
        self.bus.publish(ev.FileChanges(
            call_id=call.call_id,
            checkpoint=checkpoint.id if checkpoint is not None else None,
            files=[ev.ChangedFile(path=f["path"], operation=f["operation"]) for f in files],
            **self._turn(call)))

    def _turn(self, call: _Call) -> dict[str, Any]:
        return {"turn_id": call.turn_id} if call.turn_id else {}

    def _effects_field(self, call: _Call) -> dict[str, Any]:
        return {"effects": call.effects} if call.tool is not None and call.tool.has_effects \
            and call.effects is not None else {}

    def _publish_call(self, call: _Call) -> None:
        if call.published:
            return
        call.published = True
        tool = call.tool
        identity = tool.identity if tool else call.name
        name = tool.name if tool else call.name
        arguments = call.arguments
        if arguments is None:  # not validated: what the model sent, made encodable
            arguments = _replace_lone_surrogates(call.raw_arguments)
        line = call.summary or summary.generic(tool, name, arguments)
        self.bus.publish(ev.ToolCall(call_id=call.call_id, identity=identity, name=name,
                                     arguments=arguments, summary=line,
                                     **self._effects_field(call),
                                     **({"preview": call.shown} if call.shown else {}),
                                     **self._verdict(call), **self._turn(call)))

    def _verdict(self, call: _Call) -> dict[str, Any]:
        """The tool_call event's `policy` (allow or ask) and `rule` (the index of the rule
        that decided), once the policy step ran: a client says `asking` before the approval
        request (hooks and the preview come between), never `allowed`."""
        report = call.report
        if report is None or report.stage != "policy" or report.rule not in ("allow", "ask"):
            return {}
        out: dict[str, Any] = {"policy": report.rule}
        if report.rule_index is not None:
            out["rule"] = report.rule_index
        return out

    def _publish_result(self, call: _Call, result: ToolResult) -> None:
        extra: dict[str, Any] = {}
        if result.code:
            extra["code"] = result.code
        if result.truncated:
            extra["truncated"] = True
        self.bus.publish(ev.ToolResultEvent(call_id=call.call_id, isError=result.isError,
                                            content=result.content, **extra, **self._turn(call)))

    def _stopped(self, call: _Call, stop: Stop) -> None:
        report = call.report
        report.outcome = "stopped"
        report.stage = stop.stage
        report.code = stop.code
        # capped like every result: a stop's message may echo what the model sent (a tool
        # name of any length)
        report.result = cap_output(error_result(stop.code, stop.message), self.max_output_bytes)
        report.message = report.result.text()  # as the model reads it
        self._publish_call(call)
        self._publish_result(call, report.result)

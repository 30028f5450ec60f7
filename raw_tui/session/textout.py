"""`run --output text` and `sessions show --output text`: the assistant's text, one line per
tool call and per receipt."""

from __future__ import annotations

import json
from typing import Any, Callable, TextIO

from ..protocol import bus as ev


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _flat(text: str) -> str:
    return " ".join(text.split())


class TextPrinter:
    def __init__(self, out: TextIO, err: TextIO | None = None) -> None:
        self.out = out
        self.err = err or out
        self._mid_line = False
        self._calls: dict[str, str] = {}
        self._turns: list[str] = []  # prompt turns in order: turn N is the Nth `> ` line

    def __call__(self, event: ev.Event) -> None:
        handler = HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)
            self.out.flush()

    def _line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.write(text + "\n")

    def _on_UserMessage(self, e: ev.UserMessage) -> None:
        if isinstance(e.turn_id, str) and e.turn_id not in self._turns:
            self._turns.append(e.turn_id)
        self._line(f"> {e.text}")

    def _on_AssistantDelta(self, e: ev.AssistantDelta) -> None:
        self.out.write(e.text)
        self._mid_line = not e.text.endswith("\n")

    def _on_AssistantText(self, e: ev.AssistantText) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False

    def _on_ToolCall(self, e: ev.ToolCall) -> None:
        self._calls[e.call_id] = e.name
        self._line(f"· {e.name} {_short(e.arguments)}")

    def _on_ToolResultEvent(self, e: ev.ToolResultEvent) -> None:
        name = self._calls.get(e.call_id, e.call_id)
        text = " ".join(b.get("text", "") for b in e.content if b.get("type") == "text")
        text = " ".join(text.split())
        if len(text) > 160:
            text = text[:159] + "…"
        status = f"error {e.code}" if e.isError else "ok"
        self._line(f"  {name}: {status}{' · ' + text if text else ''}")

    def _on_HookEvent(self, e: ev.HookEvent) -> None:
        from ..hooks.dispatcher import format_receipt

        self._line(format_receipt(e))

    def _on_PanelReceipt(self, e: ev.PanelReceipt) -> None:
        title, summary = _flat(e.title), _flat(e.summary)  # titles may hold newlines
        if isinstance(e.error, ev.ReceiptError):
            self._line(f"▸ {title} rejected: {e.error.code} {_flat(e.error.message)}")
        else:
            self._line(f"▸ {title} r{e.revision}{' · ' + summary if summary else ''}")

    def _on_RunEnd(self, e: ev.RunEnd) -> None:
        if e.status != "completed":
            code = e.code if isinstance(e.code, str) else ""
            self._line(f"[run {e.status}{' ' + code if code else ''}]")

    def _on_TurnRewind(self, e: ev.TurnRewind) -> None:
        what = "retried" if e.reason == "retry" else "prompt edited"
        self._line(f"[{what}: the turns from {e.from_turn} on left the model's context]")

    def _on_AgentModel(self, e: ev.AgentModel) -> None:
        self._line(f"[agent {e.agent} · model {e.model}]")

    def _on_TurnUndo(self, e: ev.TurnUndo) -> None:
        counts: dict[str, int] = {}
        for f in e.files:
            counts[f.action] = counts.get(f.action, 0) + 1
        what = ", ".join(f"{n} {a}" if a != "conflict" else f"{n} conflict{'s' if n > 1 else ''}"
                         for a, n in counts.items())
        turn = (f"turn {self._turns.index(e.turn_id) + 1}" if e.turn_id in self._turns
                else f"turn {e.turn_id}")
        self._line(f"[undo of {turn} and later: {what or 'nothing'}]")
        for f in e.files:
            self._line(f"  {f.action} {f.path}")

    def _on_Notice(self, e: ev.Notice) -> None:
        self._line(f"[{e.level}] {e.message}")


# the event table: what each event type prints (the others print nothing)
HANDLERS: dict[type[ev.Event], Callable[[TextPrinter, Any], None]] = {
    ev.UserMessage: TextPrinter._on_UserMessage,
    ev.AssistantDelta: TextPrinter._on_AssistantDelta,
    ev.AssistantText: TextPrinter._on_AssistantText,
    ev.ToolCall: TextPrinter._on_ToolCall,
    ev.ToolResultEvent: TextPrinter._on_ToolResultEvent,
    ev.HookEvent: TextPrinter._on_HookEvent,
    ev.PanelReceipt: TextPrinter._on_PanelReceipt,
    ev.RunEnd: TextPrinter._on_RunEnd,
    ev.TurnRewind: TextPrinter._on_TurnRewind,
    ev.AgentModel: TextPrinter._on_AgentModel,
    ev.TurnUndo: TextPrinter._on_TurnUndo,
    ev.Notice: TextPrinter._on_Notice,
}

"""A form block with real inputs. Inactive (no pending request) it is drawn disabled; an
interaction request activates it: Ctrl+S submits, Esc cancels, a refused answer shows the
engine's message and the request stays open."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import log
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Label, RadioButton, RadioSet, SelectionList, Static, TextArea


class FormView(Vertical):
    HELP = "A question from a tool. **Ctrl+S** submits, **Esc** cancels, **Tab** moves."

    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit", id="form.submit"),
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
    ]

    class Submitted(Message):
        def __init__(self, form: "FormView", request_id: str, answers: dict) -> None:
            super().__init__()
            self.form, self.request_id, self.answers = form, request_id, answers

    class Cancelled(Message):
        def __init__(self, form: "FormView", request_id: str) -> None:
            super().__init__()
            self.form, self.request_id = form, request_id

    def __init__(self, block: dict, *, cursor_blink: bool = False) -> None:
        super().__init__(classes="block form-block")
        self.block = block
        self.block_id = block.get("id")
        self.cursor_blink = cursor_blink
        self.request_id: str | None = None
        self.inputs: dict[str, Any] = {}

    # building -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        try:
            widgets = list(self._widgets())
        except Exception as err:  # a malformed form shows an error line, never a crash
            log.error(f"form {self.block_id} failed: {err!r}")
            self.inputs.clear()
            widgets = [Static(Text(f"⚠ cannot draw this form ({err})", style="red")),
                       Static("", classes="form-error"), Static("", classes="form-hint")]
        yield from widgets

    def _widgets(self) -> ComposeResult:
        if self.block.get("title"):
            yield Static(Text(str(self.block["title"]), style="bold"), classes="block-title")
        for field in self.block.get("fields") or []:
            label = str(field.get("label", field.get("id", "")))
            yield Label(label + (" *" if field.get("required") else ""), classes="field-label")
            if field.get("description"):
                yield Static(Text(str(field["description"]), style="dim"), classes="field-help")
            widget = self._input_for(field)
            widget.disabled = True
            self.inputs[field.get("id")] = widget
            yield widget
        yield Static("", classes="form-error")
        yield Static("", classes="form-hint")

    def _input_for(self, field: dict) -> Any:
        kind = field.get("kind")
        options = field.get("options") or []
        if kind == "single_select":
            return RadioSet(*(RadioButton(str(o.get("label", o.get("id")))) for o in options),
                            classes="field-input")
        if kind == "multi_select":
            return SelectionList(*((str(o.get("label", o.get("id"))), o.get("id"))
                                   for o in options), classes="field-input")
        if field.get("multiline"):
            area = TextArea(classes="field-input field-multiline", soft_wrap=True,
                            tab_behavior="focus")
            area.cursor_blink = self.cursor_blink
            return area
        line = Input(placeholder=str(field.get("placeholder", "")), classes="field-input")
        line.cursor_blink = self.cursor_blink
        return line

    # state --------------------------------------------------------------------------------
    def activate(self, request_id: str) -> None:
        self.request_id = request_id
        self.add_class("-active")
        for widget in self.inputs.values():
            widget.disabled = False
        self.show_error(None)
        self.query_one(".form-hint", Static).update(
            Text("Ctrl+S submit · Esc cancel", style="bold"))
        first = next(iter(self.inputs.values()), None)
        if first is not None:
            self.call_after_refresh(first.focus)

    def deactivate(self, status: str | None = None) -> None:
        self.request_id = None
        self.remove_class("-active")
        for widget in self.inputs.values():
            widget.disabled = True
        self.show_error(None)
        self.query_one(".form-hint", Static).update(
            Text(f"({status})", style="dim") if status else "")

    def show_error(self, message: str | None) -> None:
        error = self.query_one(".form-error", Static)
        error.update(Text("✘ " + message, style="bold red") if message else "")
        error.display = bool(message)

    def show_waiting(self) -> None:
        self.query_one(".form-hint", Static).update(Text("answer sent…", style="dim"))

    def answers(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for field in self.block.get("fields") or []:
            fid = field.get("id")
            widget = self.inputs.get(fid)
            options = [o.get("id") for o in field.get("options") or []]
            if isinstance(widget, RadioSet):
                index = widget.pressed_index
                if index >= 0:
                    out[fid] = options[index]
            elif isinstance(widget, SelectionList):
                chosen = set(widget.selected)
                out[fid] = [o for o in options if o in chosen]
            elif isinstance(widget, TextArea):
                if widget.text or field.get("required"):
                    out[fid] = widget.text
            elif isinstance(widget, Input):
                if widget.value or field.get("required"):
                    out[fid] = widget.value
        return out

    def plain_text(self) -> str:
        lines = [str(self.block.get("title", ""))] if self.block.get("title") else []
        for field in self.block.get("fields") or []:
            lines.append(str(field.get("label", "")))
        return "\n".join(lines)

    # actions ------------------------------------------------------------------------------
    def action_submit(self) -> None:
        if self.request_id is None:
            raise SkipAction()
        self.post_message(self.Submitted(self, self.request_id, self.answers()))

    def action_cancel(self) -> None:
        if self.request_id is None:
            raise SkipAction()  # Esc falls through (cancels a running turn)
        self.post_message(self.Cancelled(self, self.request_id))

"""A form block with real inputs. Inactive (no pending request) it is drawn disabled; an
interaction request activates it: Ctrl+S submits, Esc cancels, a refused answer shows the
engine's message and the request stays open."""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

from rich.text import Text
from textual import events, log
from textual.actions import SkipAction
from rich.segment import Segment
from textual.app import ComposeResult
from textual.content import Content
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Input, RadioButton, RadioSet, SelectionList, Static, TextArea

from ..textual_private import ButtonFace, toggle_button_glyphs

# Choices readable without colour (NO_COLOR, capture-pane): Textual draws every radio button
# and every selection-list box with the same glyph and tells them apart by colour only.
RADIO_ON, RADIO_OFF = "(•)", "( )"
CHECK_ON, CHECK_OFF = "[x]", "[ ]"


class Choice(ButtonFace, RadioButton):
    """A radio button drawn `(•) Label` when chosen and `( ) Label` otherwise."""

    def button_face(self) -> Content:
        style = self.get_visual_style("toggle--button")
        mark = RADIO_ON if self.value else RADIO_OFF
        return Content.assemble(mark[0], (mark[1], style), mark[2])


class Choices(SelectionList):
    """A multi-select drawn `[x] Label` when selected and `[ ] Label` otherwise."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        button = toggle_button_glyphs()
        if len(segments) < 4 or "".join(s.text for s in segments[:3]) != button:
            return strip
        try:
            value = self.get_option_at_index(self.scroll_offset.y + y).value
        except Exception:
            return strip
        mark = CHECK_ON if value in self.selected else CHECK_OFF
        base = segments[3].style
        box = [Segment(mark[0], base), Segment(mark[1], segments[1].style),
               Segment(mark[2], base)]
        return Strip(box + segments[3:], strip.cell_length)


class FormField(Vertical):
    """One question: its label (wrapped, never cut), its help, its input. When the input
    has the focus the whole field is scrolled into view, label first, so the question stays
    above its options (an option list longer than the window scrolls inside itself)."""

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.call_after_refresh(self.scroll_visible, animate=False)


class FormView(Vertical):
    HELP = "A question from a tool. **Ctrl+S** submits, **Esc** cancels, **Tab** moves."

    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit", id="form.submit"),
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
    ]

    @dataclass
    class Submitted(Message):
        """Ctrl+S: the answers to the request this form stands for."""

        form: "FormView"
        request_id: str
        answers: dict

        @property
        def control(self) -> "FormView":
            return self.form

    @dataclass
    class Cancelled(Message):
        """Esc: the user declines the request."""

        form: "FormView"
        request_id: str

        @property
        def control(self) -> "FormView":
            return self.form

    def __init__(self, block: dict, *, cursor_blink: bool = False,
                 status: str | None = None, answers: dict | None = None) -> None:
        super().__init__(classes="block form-block")
        self.block = block
        self.block_id = block.get("id")
        self.cursor_blink = cursor_blink
        self.request_id: str | None = None
        self.inputs: dict[str, Any] = {}
        self.status = status  # how its last request ended, shown under it
        self.filled = answers if isinstance(answers, dict) else {}  # the answers it was given

    def on_mount(self) -> None:
        if self.status and self.request_id is None:
            self.deactivate(self.status)

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
            parts = [Static(Text(label + (" *" if field.get("required") else "")),
                            classes="field-label")]
            if field.get("description"):
                parts.append(Static(Text(str(field["description"]), style="dim"),
                                    classes="field-help"))
            widget = self._input_for(field)
            widget.disabled = True
            self.inputs[field.get("id")] = widget
            yield FormField(*parts, widget)
        yield Static("", classes="form-error")
        yield Static("", classes="form-hint")

    def _input_for(self, field: dict) -> Any:
        kind = field.get("kind")
        options = field.get("options") or []
        given = self.filled.get(field.get("id"))
        chosen = set(given) if isinstance(given, (list, tuple)) else {given}
        text = given if isinstance(given, str) else ""
        if kind == "single_select":
            return RadioSet(*(Choice(str(o.get("label", o.get("id"))), o.get("id") in chosen)
                              for o in options), classes="field-input")
        if kind == "multi_select":
            return Choices(*((str(o.get("label", o.get("id"))), o.get("id"),
                              o.get("id") in chosen) for o in options), classes="field-input")
        if field.get("multiline"):
            area = TextArea(text, classes="field-input field-multiline", soft_wrap=True,
                            tab_behavior="focus")
            area.cursor_blink = self.cursor_blink
            return area
        line = Input(text, placeholder=str(field.get("placeholder", "")), classes="field-input")
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

    def focus_first(self) -> bool:
        """Focus the form's first input (Tab or Enter back into a waiting form)."""
        first = next(iter(self.inputs.values()), None)
        if first is None or self.request_id is None:
            return False
        first.focus()
        return True

    def deactivate(self, status: str | None = None) -> None:
        self.request_id = None
        self.remove_class("-active")
        for widget in self.inputs.values():
            widget.disabled = True
        self.show_error(None)
        self.query_one(".form-hint", Static).update(
            Text(f"({status})", style="dim") if status else "")

    def show_answers(self, answers: Any) -> None:
        """Show `answers` (an answered request's, as the engine kept them) in its inputs."""
        if not isinstance(answers, dict):
            return
        self.filled = answers
        for field in self.block.get("fields") or []:
            widget = self.inputs.get(field.get("id"))
            if field.get("id") not in answers or widget is None:
                continue
            given = answers[field.get("id")]
            options = [o.get("id") for o in field.get("options") or []]
            if isinstance(widget, RadioSet):
                for option, button in zip(options, widget.query(RadioButton)):
                    if option == given:
                        button.value = True
            elif isinstance(widget, SelectionList):
                widget.deselect_all()
                for option in options:
                    if isinstance(given, (list, tuple)) and option in given:
                        widget.select(option)
            elif isinstance(widget, TextArea) and isinstance(given, str):
                widget.load_text(given)
            elif isinstance(widget, Input) and isinstance(given, str):
                widget.value = given

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
                # the buttons, not pressed_index alone: the set learns of a press from a
                # message, so a Ctrl+S typed right after Enter would read the choice before it
                # (until then the new button and the old one are both on: the new one counts)
                on = [i for i, button in enumerate(widget.query(RadioButton)) if button.value]
                newer = [i for i in on if i != widget.pressed_index]
                index = (newer or on or [-1])[0]
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

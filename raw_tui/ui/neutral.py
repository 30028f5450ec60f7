"""The one door through which text from outside reaches the screen (see
docs/decisions.md).

Everything the UI draws that it did not write itself comes from its session client: the
events (model text, tool arguments, results and output, hook messages, paths and previews,
panel documents, forms, notices from the host), the session's info (agents, models), the
replies to commands (a refusal's message, a prompt action's draft) and the saved sessions
(titles). `NeutralClient` wraps that client before the app holds it, so no widget can reach
an unneutralised string: every string of every value crossing it passes through
`raw_tui.protocol.termsafe.for_screen` (controls shown as `\\x1b`, bidi format characters as `\\u202e`;
newlines and tabs kept, so Markdown still renders).

Two things need more than that:
- A running tool's output (`tool_output`) is terminal output: its colour and cursor
  sequences are dropped rather than shown (a sequence cut between two chunks is held until
  the next one), and a `\\r` is kept for the row that draws it (a progress counter shows its
  last state; widgets/tool_call.py); all else is escaped as everywhere.
- What the UI sends back names things it was shown: a call id, a form's request id and
  field names, a panel's id, action and item, an agent or model. A name that was changed for
  the screen is mapped back to the session's own string in every command, so a hostile id
  is still the id it stands for (never the free text of a prompt).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any

import msgspec

from ..protocol import bus as events
from ..protocol.client import Deliver, Opened, SessionClient
from ..protocol.commands import Command, EditPrompt, Prompt, Reply, SavedSession, SessionInfo
from ..protocol.termsafe import escape_controls, for_screen, neutralise

NAMES_KEPT = 4096  # changed strings remembered to map back (the oldest forgotten first)
NAME_MAX_CHARS = 1024  # longer strings are text, not names: never mapped back
CSI_HELD_MAX = 64  # the most of a cut escape sequence held for the next output chunk
# terminal output: colour and cursor sequences (CSI, 7-bit) and the one-character escapes
# (`ESC 7`, `ESC =`), dropped; OSC, DCS and the rest are escaped like any control
TERMINAL_FORMATTING = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[78=>]")
CUT_SEQUENCE = re.compile(r"\x1b(\[[0-?]*[ -/]*)?$")
# in JSON text, `\\` (an escaped backslash) and what may follow it from `for_screen`
JSON_BACKSLASH = re.compile(r"\\\\(x(?:[01][0-9a-f]|7f|[89][0-9a-f])|u(?:202[a-e]|206[6-9]))?")
FREE_TEXT = {Prompt: ("text",), EditPrompt: ("text",)}  # sent as typed, never mapped back


def output_for_screen(text: str) -> str:
    """A running tool's output: formatting sequences dropped, `\\r` kept (the row that draws
    it shows a rewritten line's last state), every other control escaped."""
    text = TERMINAL_FORMATTING.sub("", text.replace("\r\n", "\n"))
    return "\r".join(escape_controls(part) for part in text.split("\r"))


def json_text(value: Any, *, indent: int | None = None) -> str:
    """A neutralised value as JSON to read: a control shown as `\\x1b` reads `\\x1b` (not
    JSON's doubled backslash before it), like everywhere else on the screen."""
    import json  # (not before the first frame: it draws no JSON)

    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return JSON_BACKSLASH.sub(lambda m: "\\" + m[1] if m[1] else m[0], text)


class NeutralClient:
    """`inner` with every value it hands the UI neutralised, and the names the UI sends back
    mapped to the session's own. Anything else (`detachable`, `quit_sent`, `inner`) is
    `inner`'s."""

    def __init__(self, inner: SessionClient) -> None:
        self._inner = inner
        self._originals: OrderedDict[str, str] = OrderedDict()
        self._held: dict[str, str] = {}  # call id -> the start of a cut escape sequence

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    # what comes in ------------------------------------------------------------------------
    def _text(self, text: str) -> str:
        shown = for_screen(text)
        if shown is not text and len(text) <= NAME_MAX_CHARS:
            self._originals[shown] = text
            self._originals.move_to_end(shown)
            if len(self._originals) > NAMES_KEPT:
                self._originals.popitem(last=False)
        return shown

    def _in(self, value: Any) -> Any:
        return neutralise(value, self._text)

    def _event(self, event: Any) -> Any:
        if isinstance(event, events.ToolOutput):
            return self._output(event)
        if isinstance(event, events.ToolResultEvent):
            self._held.pop(event.call_id, None)
        return self._in(event)

    def _output(self, event: events.ToolOutput) -> events.ToolOutput:
        held = self._held.pop(event.call_id, "")
        text = ("" if event.cut else held) + event.text  # output left out between: not one
        cut = CUT_SEQUENCE.search(text)
        if cut is not None and len(cut.group()) <= CSI_HELD_MAX:
            self._held[event.call_id] = cut.group()
            text = text[:cut.start()]
        call_id = self._text(event.call_id)
        return msgspec.structs.replace(event, call_id=call_id, text=output_for_screen(text))

    @property
    def info(self) -> SessionInfo:
        return self._in(self._inner.info)

    @property
    def ready(self) -> bool:
        return self._inner.ready

    def listen(self, deliver: Deliver) -> None:
        def neutralised(event: events.Event) -> None:
            deliver(self._event(event))

        neutralised.__qualname__ = "the UI"  # named in the bus's failure notice
        self._inner.listen(neutralised)

    async def open(self) -> Opened:
        opened = await self._inner.open()
        return Opened(info=self._in(opened.info), ui=self._in(opened.ui),
                      replay=[self._event(event) for event in opened.replay])

    async def saved_sessions(self) -> list[SavedSession]:
        return self._in(await self._inner.saved_sessions())

    # what goes out ------------------------------------------------------------------------
    def _name(self, text: str) -> str:
        return self._originals.get(text, text)

    def _out(self, command: Command) -> Command:
        kept = FREE_TEXT.get(type(command), ())
        changes = {}
        for field in command.__struct_fields__:
            if field in kept:
                continue
            value = getattr(command, field)
            new = neutralise(value, self._name)
            if new is not value:
                changes[field] = new
        return msgspec.structs.replace(command, **changes) if changes else command

    async def handle(self, command: Command) -> Reply:
        reply = await self._inner.handle(self._out(command))
        return reply if reply is None else self._in(reply)

    async def close(self) -> None:
        await self._inner.close()

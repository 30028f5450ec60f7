"""The neutraliser: `raw_tui.protocol.termsafe` (text for a terminal) and `raw_tui.ui.neutral` (the
session client the UI holds), from the outside of each function."""

from __future__ import annotations

import asyncio
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from raw_tui.protocol import bus as ev
from raw_tui.protocol.bus import Bus
from raw_tui.protocol.client import InProcessTransport
from raw_tui.protocol.commands import (ApprovalAnswer, FormAnswer, PanelAction, Prompt, Reply,
                              SavedSession, SessionInfo, SwitchAgent, UiSettings)
from raw_tui.protocol.termsafe import (BIDI, escape_controls, escape_json_controls, for_screen,
                              neutralise)
from raw_tui.ui.neutral import NeutralClient, json_text, output_for_screen

BAD = "\x1b]52;c;cHduZWQ=\x07\x1b]0;t\x07\x1b[2J\x9b31m\u202eX\x7f\x00\r"
SHOWN = "\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;t\\x07\\x1b[2J\\x9b31m\\u202eX\\x7f\\x00\\x0d"


def unsafe(text: str) -> list[str]:
    """The characters of `text` that drive a terminal or reorder a line."""
    return [c for c in text if (unicodedata.category(c) == "Cc" and c not in "\n\t")
            or ord(c) in BIDI]


def test_every_control_and_bidi_character_is_shown_escaped():
    for code in [*range(0x20), *range(0x7F, 0xA0)]:
        if chr(code) not in "\n\t":
            assert escape_controls(chr(code)) == f"\\x{code:02x}"
    for code in BIDI:
        assert escape_controls(chr(code)) == f"\\u{code:04x}"
    assert [f"{c:04x}" for c in BIDI] == ["202a", "202b", "202c", "202d", "202e", "2066",
                                          "2067", "2068", "2069"]
    assert escape_controls(BAD) == SHOWN
    assert escape_controls("a\n\tb") == "a\n\tb"
    assert escape_controls("a\n\tb", keep_lines=False) == "a\\x0a\\x09b"


def test_markdown_and_ordinary_text_are_left_alone():
    text = "# Title\n\n- **bold** `code`\n\t| a | b |\nnaïve 日本語 emoji 🙂 \u200d\u2028"
    assert escape_controls(text) is text
    assert for_screen(text) is text


@given(st.text())
def test_nothing_unsafe_is_left_and_escaping_twice_changes_nothing(text):
    once = escape_controls(text)
    assert unsafe(once) == []
    assert escape_controls(once) == once  # never double-escaped
    shown = for_screen(text)
    assert unsafe(shown) == [] and for_screen(shown) == shown


def test_a_crlf_is_a_line_end_on_screen_but_a_lone_cr_is_escaped():
    assert for_screen("a\r\nb\rc") == "a\nb\\x0dc"
    assert escape_controls("a\r\nb") == "a\\x0d\nb"  # text output: unchanged


def test_json_output_gets_the_bidi_characters_and_c1_as_json_escapes():
    import json

    text = json.dumps({"t": "a\u202eb\x9bc"}, ensure_ascii=False)
    escaped = escape_json_controls(text)
    assert escaped == '{"t": "a\\u202eb\\u009bc"}'
    assert json.loads(escaped) == json.loads(text)


def test_neutralise_walks_structs_lists_and_dicts_and_keeps_what_is_clean():
    event = ev.ToolCall(call_id="c\x1b", identity="agent/x", name="x",
                        arguments={"k\u202e": ["v\x9b", 1, None, {"deep": "\x07"}]})
    out = neutralise(event)
    assert out.call_id == "c\\x1b"
    assert out.arguments == {"k\\u202e": ["v\\x9b", 1, None, {"deep": "\\x07"}]}
    assert event.call_id == "c\x1b"  # the original is untouched
    clean = ev.ToolCall(call_id="c1", identity="agent/x", name="x", arguments={"a": [1, "b"]})
    assert neutralise(clean) is clean
    preview = ev.ApprovalPreview(files=[ev.FilePreview(path="/p\x1b", operation="write",
                                                       diff="+\u202e\r\n")])
    assert neutralise(preview).files[0].path == "/p\\x1b"
    assert neutralise(preview).files[0].diff == "+\\u202e\n"


def test_terminal_output_drops_formatting_keeps_cr_and_escapes_the_rest():
    assert output_for_screen("\x1b[31mred\x1b[0m\r\nbar 10%\rbar 90%") == "red\nbar 10%\rbar 90%"
    assert output_for_screen("\x1b]52;c;eA==\x07\x9b2J\u202e") == (
        "\\x1b]52;c;eA==\\x07\\x9b2J\\u202e")


def test_json_shown_on_screen_is_not_escaped_twice():
    value = neutralise({"path": "p\x1b]0;t\x07\u202e", "literal": "C:\\x1b\\n"})
    text = json_text(value)
    assert '"path": "p\\x1b]0;t\\x07\\u202e"' in text
    assert '"literal": "C:\\x1b\\\\n"' in text  # a real backslash still reads as JSON's `\\`
    assert unsafe(text) == []


# the client -----------------------------------------------------------------------------

class Session:
    """The least of a SessionApi: a bus, info, replies, saved sessions, a command log."""

    def __init__(self) -> None:
        self.bus = Bus()
        self.info = SessionInfo(session_id="s", agent="a\x1b]0;t\x07", model="m", max_steps=3,
                                cwd="/w", agents=["a\x1b]0;t\x07", "b\u202e"])
        self.commands = []

    async def open(self, *, watch: bool = False) -> None:
        pass

    async def handle(self, command):
        self.commands.append(command)
        return Reply(ok=False, message="refused \x1b[2J", draft="draft \u202e")

    def saved_sessions(self):
        return [SavedSession(id="s0", title="title \x1b]52;c;eA==\x07", updated_at=0.0,
                             events=1)]

    def ui_settings(self):
        return UiSettings()

    async def close(self) -> None:
        pass


def neutral_client(session: Session, replay=()):
    return NeutralClient(InProcessTransport.of(session, list(replay)))


def test_everything_the_client_hands_the_ui_is_neutralised():
    session = Session()
    seen = []
    client = neutral_client(session, [ev.AssistantText(text="old \x9b")])
    client.listen(seen.append)

    async def go():
        opened = await client.open()
        session.bus.publish(ev.HookEvent(id="h", event="PreToolUse", outcome="continued",
                                         duration_ms=1, message="m \x1b]0;t\x07"))
        reply = await client.handle(Prompt(text="hi"))
        return opened, reply, await client.saved_sessions()

    opened, reply, saved = asyncio.run(go())
    assert opened.replay[0].text == "old \\x9b"
    assert opened.info.agent == "a\\x1b]0;t\\x07" and client.info.agents[1] == "b\\u202e"
    assert seen[0].message == "m \\x1b]0;t\\x07"
    assert reply.message == "refused \\x1b[2J" and reply.draft == "draft \\u202e"
    assert saved[0].title == "title \\x1b]52;c;eA==\\x07"


def test_live_output_drops_a_colour_sequence_cut_between_two_chunks():
    session = Session()
    seen = []
    client = neutral_client(session)
    client.listen(seen.append)
    session.bus.publish(ev.ToolOutput(call_id="c", text="one \x1b[3"))
    session.bus.publish(ev.ToolOutput(call_id="c", text="1mred\x1b[0m\n"))
    assert "".join(e.text for e in seen) == "one red\n"
    session.bus.publish(ev.ToolOutput(call_id="c", text="two \x1b["))
    session.bus.publish(ev.ToolOutput(call_id="c", text="x", cut=100))  # not the same sequence
    assert seen[-1].text == "x"


def test_names_the_ui_was_shown_go_back_as_the_sessions_own():
    session = Session()
    seen = []
    client = neutral_client(session)
    client.listen(seen.append)
    call_id, field, option = "call\x1b]0;x\x07", "f\u202e", "opt\x9b"
    session.bus.publish(ev.ApprovalRequest(call_id=call_id, identity="builtin/bash",
                                           name="bash", arguments={}))
    session.bus.publish(ev.InteractionRequest(request_id="r\x1b", panel="p\u202e#x"))
    shown = seen[0].call_id
    assert shown == "call\\x1b]0;x\\x07"
    session.bus.publish(ev.PanelState(panel="p\u202e#x", owner="o", revision=1,
                                      placement="sidebar", document={"blocks": [
                                          {"kind": "form", "fields": [{"id": field,
                                                                       "options": [option]}]},
                                          {"kind": "checklist", "items": [{"id": "i\x1b"}]}]}))

    async def go():
        await client.open()
        await client.handle(ApprovalAnswer(call_id=shown, allow=True))
        await client.handle(FormAnswer(request_id="r\\x1b",
                                       answers={"f\\u202e": "opt\\x9b", "free": "x"}))
        await client.handle(PanelAction(panel="p\\u202e#x", action="go", item="i\\x1b"))
        await client.handle(SwitchAgent(agent=client.info.agents[1]))
        await client.handle(Prompt(text=shown))  # typed text goes as typed

    asyncio.run(go())
    approval, form, action, switch, prompt = session.commands
    assert approval.call_id == call_id
    assert form.request_id == "r\x1b" and form.answers == {field: option, "free": "x"}
    assert action.panel == "p\u202e#x" and action.item == "i\x1b"
    assert switch.agent == "b\u202e"
    assert prompt.text == shown

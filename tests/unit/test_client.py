"""The transport seam (raw_tui/protocol/client.py): a real engine session behind the in-process and the
encoding transport; what crosses the encoding one is a decoded copy, strictly typed."""

from __future__ import annotations

import msgspec
import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol.client import EncodingTransport, InProcessTransport, with_transport
from raw_tui.protocol.commands import ApprovalAnswer, Prompt, Quit, Reply, SavedSession, UiSettings
from raw_tui.session.store import HistoryStore
from raw_tui.config import load_config
from tests.engine.session_kit import BASE, make_session
from tests.config_kit import write_config


def _engine(tmp_path, **kw):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": BASE}}, extra={
        "ui": {"keymap": {"raw.quit": "ctrl+x"}, "cursor_blink": True}})
    config = load_config(str(cfg / "raw.json"), cwd=tmp_path)
    return make_session(tmp_path, [{"text": "hello there"}], config=config, interactive=True,
                        **kw)


@pytest.mark.parametrize("name", ["in-process", "encoding"])
async def test_a_turn_crosses_the_transport(tmp_path, name):
    harness = _engine(tmp_path)
    client = with_transport(name, InProcessTransport.of(harness.session))
    seen: list[ev.Event] = []
    client.listen(seen.append)
    opened = await client.open()
    assert opened.info == harness.session.info
    assert opened.ui == UiSettings(keymap={"raw.quit": "ctrl+x"}, cursor_blink=True)
    assert await client.handle(Prompt(text="hi")) == Reply()
    await harness.wait_for(ev.RunEnd)
    assert [type(e).__name__ for e in seen] == [type(e).__name__ for e in harness.events]
    assert seen == harness.events
    if name == "encoding":  # copies, not the engine's own objects
        assert all(a is not b for a, b in zip(seen, harness.events))
    refused = await client.handle(ApprovalAnswer(call_id="nope", allow=True))
    assert refused.ok is False and refused.message == "no such approval request"
    await client.close()
    await client.close()  # twice is fine
    assert harness.session.state == "closing"


async def test_an_event_that_cannot_cross_a_socket_fails_in_the_encoding_transport(tmp_path):
    harness = _engine(tmp_path)
    client = EncodingTransport(InProcessTransport.of(harness.session))
    seen: list[ev.Event] = []
    client.listen(seen.append)
    harness.session.bus.publish(ev.ToolCall(call_id="c", identity="x", name="x",
                                            arguments={"bad": object()}))
    assert [type(e) for e in seen] == [ev.Notice]  # the bus reports the failed delivery
    assert seen[0].level == "error" and "tool_call" in seen[0].message


async def test_commands_cross_strictly(tmp_path):
    harness = _engine(tmp_path)
    client = EncodingTransport(InProcessTransport.of(harness.session))
    with pytest.raises(msgspec.ValidationError):
        await client.handle(Prompt(text=3))  # a Struct built wrong never reaches the session


async def test_saved_sessions_are_the_others_of_every_directory_newest_first(tmp_path):
    store = HistoryStore(tmp_path / "history.db")
    try:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        oldest = _engine(tmp_path, store=store, cwd=elsewhere)
        await oldest.session.handle(Prompt(text="in another directory"))
        await oldest.wait_for(ev.RunEnd)
        await oldest.session.close()
        older = _engine(tmp_path, store=store)
        await older.session.handle(Prompt(text="fix the parser"))
        await older.wait_for(ev.RunEnd)
        await older.session.close()
        current = _engine(tmp_path, store=store)
        client = EncodingTransport(InProcessTransport.of(current.session))
        client.listen(lambda event: None)
        await client.open()
        saved = await client.saved_sessions()
        assert [(row.id, row.title, row.cwd) for row in saved] == [
            (older.session.session_id, "fix the parser", older.session.cwd),
            (oldest.session.session_id, "in another directory", str(elsewhere))]
        assert saved[0].events > 0
        await client.handle(Quit())
    finally:
        store.close()


async def test_a_command_sent_before_the_session_opens_waits_for_it(tmp_path):
    harness = _engine(tmp_path)
    client = InProcessTransport(lambda: (harness.session, []), cwd=str(tmp_path))
    assert not client.ready and client.info.agent == "raw-tui"
    import asyncio

    pending = asyncio.ensure_future(client.handle(Prompt(text="hi")))
    await asyncio.sleep(0.01)
    assert not pending.done()
    await client.open()
    assert (await pending).ok
    await harness.wait_for(ev.RunEnd)
    await client.close()


async def test_a_failed_open_answers_commands_with_a_refusal(tmp_path):
    def opener():
        raise RuntimeError("broken config")

    client = InProcessTransport(opener, cwd=str(tmp_path))
    with pytest.raises(RuntimeError):
        await client.open()
    reply = await client.handle(Prompt(text="hi"))
    assert reply.ok is False and reply.message == "the session could not start"


def test_an_unknown_transport_is_named():
    with pytest.raises(ValueError, match="unknown transport 'socket'"):
        with_transport("socket", InProcessTransport(lambda: None, cwd="/"))

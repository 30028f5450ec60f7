"""The session host over a real Unix socket, in this process: snapshot then live stream
(nothing lost or doubled while racing), commands and replies, two clients, paging, bad
frames, detach keeps the session going, Quit and the idle timeout end it."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import time

import msgspec
import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.host import protocol as wire
from raw_tui.host.client import HostClient, HostGone
from raw_tui.host.paths import socket_path
from raw_tui.host.server import SessionHost
from tests.engine.session_kit import make_session


def ask_rules():
    return [{"match": "builtin/write_file", "effect": "ask"}]


def write_call(path="note.txt", call_id="c1"):
    return {"tool_calls": [{"id": call_id, "name": "write_file", "arguments": {
        "operations": [{"mode": "overwrite", "path": path, "content": "hi\n"}]}}]}


async def start_host(tmp_path, lines, **kw):
    idle = kw.pop("idle_timeout_s", 3600)
    h = make_session(tmp_path, lines, interactive=True, **kw)
    host = SessionHost(h.session, idle_timeout_s=idle)
    path = socket_path(h.session.session_id)
    await host.start(path)
    await h.session.open()
    return h, host, path


async def stop(host):
    if not host.ended.is_set():
        await host.stop("test")


async def wait_until(predicate, timeout=10.0):
    async def poll():
        while not predicate():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(poll(), timeout)


async def test_socket_mode_and_directory(tmp_path):
    h, host, path = await start_host(tmp_path, [])
    try:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        assert path.name == f"{h.session.session_id}.sock"
    finally:
        await stop(host)
    assert not path.exists()


async def test_attach_snapshot_then_live_then_approval_answered(tmp_path):
    h, host, path = await start_host(tmp_path, [{"text": "first reply"}, write_call(),
                                                {"text": "written"}], rules=ask_rules())
    try:
        await h.session.run_turn("hello")
        client = await HostClient.connect(path)
        snap = client.snapshot
        assert snap.info.session_id == h.session.session_id
        kinds = [type(e).__name__ for e in snap.events]
        assert "UserMessage" in kinds and "AssistantText" in kinds
        assert "AssistantDelta" not in kinds and "TurnState" not in kinds
        assert snap.turn.state == "idle" and snap.approvals == []
        seen: list[ev.Event] = []
        client.bus.subscribe(seen.append)
        await client.open()
        assert (await client.handle(cmd.Prompt(text="write it"))).ok
        await wait_until(lambda: any(isinstance(e, ev.ApprovalRequest) for e in seen))
        assert host.state == "waiting for approval"
        reply = await client.handle(cmd.ApprovalAnswer(call_id="c1", allow=True))
        assert reply.ok
        await wait_until(lambda: any(isinstance(e, ev.RunEnd) for e in seen))
        assert (tmp_path / "work" / "note.txt").read_text() == "hi\n"
        await client.close()
    finally:
        await stop(host)


async def test_detach_keeps_turn_waiting_and_reattach_shows_the_approval(tmp_path):
    h, host, path = await start_host(tmp_path, [write_call()], rules=ask_rules())
    try:
        client = await HostClient.connect(path)
        await client.open()
        await client.handle(cmd.Prompt(text="write"))
        await wait_until(lambda: bool(host.approvals))
        await client.close()
        await wait_until(lambda: not host.clients)
        await asyncio.sleep(0.1)
        assert h.session.busy  # the turn still waits for its answer
        again = await HostClient.connect(path)
        assert [a.call_id for a in again.snapshot.approvals] == ["c1"]
        assert again.snapshot.turn.state == "running"
        state = again.state_events()
        assert any(isinstance(e, ev.ApprovalRequest) for e in state)
        assert (await again.handle(cmd.ApprovalAnswer(call_id="c1", allow=False))).ok
        await wait_until(lambda: not h.session.busy)
        assert h.of(ev.RunEnd)[-1].status == "completed"
        await again.close()
    finally:
        await stop(host)


async def test_two_clients_an_answer_from_one_closes_the_others_request(tmp_path):
    h, host, path = await start_host(tmp_path, [write_call()], rules=ask_rules())
    try:
        first = await HostClient.connect(path)
        await first.open()
        await first.handle(cmd.Prompt(text="write"))
        await wait_until(lambda: bool(host.approvals))
        second = await HostClient.connect(path)
        assert second.snapshot.clients == 2
        assert [a.call_id for a in second.snapshot.approvals] == ["c1"]
        seen: list[ev.Event] = []
        second.bus.subscribe(seen.append)
        await second.open()
        assert (await first.handle(cmd.ApprovalAnswer(call_id="c1", allow=True))).ok
        await wait_until(lambda: any(isinstance(e, ev.ApprovalDecision) for e in seen))
        decision = next(e for e in seen if isinstance(e, ev.ApprovalDecision))
        assert decision.call_id == "c1" and decision.allow
        late = await second.handle(cmd.ApprovalAnswer(call_id="c1", allow=False))
        assert not late.ok  # already answered by the first client
        await first.close()
        await second.close()
    finally:
        await stop(host)


async def test_snapshot_and_stream_race_nothing_lost_or_doubled(tmp_path):
    """Attach again and again while a turn streams hundreds of deltas: every client sees
    seq numbers continue exactly from its snapshot (no gap: it would end the client), and
    its events equal the host's (streamed text may come joined: compared joined)."""
    text = " ".join(f"w{i}" for i in range(600))
    h, host, path = await start_host(tmp_path, [{"text": text}], delay_ms=1)
    published: list[tuple[int, bytes]] = []
    h.session.bus.subscribe(lambda e: published.append((host.seq, ev.encode(e))))
    try:
        await h.session.handle(cmd.Prompt(text="stream"))
        clients = []
        while h.session.busy:
            client = await HostClient.connect(path)
            got: list[tuple[int, bytes]] = []
            client.bus.subscribe(lambda e, c=client, g=got: g.append((c.seq, ev.encode(e))))
            client.start()
            clients.append((client, got))
            await asyncio.sleep(0.003)
        assert len(clients) >= 5
        await asyncio.sleep(0.3)
        joined_any = False
        for client, got in clients:
            seqs = [s for s, _ in got]
            start = client.snapshot.seq
            assert not client.ended.is_set(), client.end_message
            assert seqs == sorted(set(seqs)) and all(s > start for s in seqs)
            assert (seqs[-1] if seqs else start) == host.seq
            joined_any = joined_any or len(seqs) < host.seq - start
            host_side = [data for s, data in published if s > start]
            assert _join_deltas(data for _, data in got) == _join_deltas(host_side)
            await client.close()
        assert joined_any  # the stream did cross joined
    finally:
        await stop(host)


def _join_deltas(encoded) -> list:
    """Events, with each run of assistant_delta of one turn as one (texts joined)."""
    out: list = []
    for data in encoded:
        event = msgspec.json.decode(data)
        last = out[-1] if out else None
        if (event["type"] == "assistant_delta" and last is not None
                and last["type"] == "assistant_delta"
                and last.get("turn_id") == event.get("turn_id")):
            last["text"] += event["text"]
        else:
            out.append(event)
    return out


async def test_streaming_text_and_paging_back(tmp_path):
    lines = [{"text": f"reply {i}"} for i in range(30)]
    h, host, path = await start_host(tmp_path, lines)
    try:
        for i in range(30):
            await h.session.run_turn(f"prompt {i}")
        client = await HostClient.connect(path, history=10)
        snap = client.snapshot
        assert len(snap.events) == 10 and snap.first_seq > 1
        first, older = await client.page(snap.first_seq, 15)
        assert len(older) == 15 and first < snap.first_seq
        first2, oldest = await client.page(first, 10_000)
        texts = [e.text for e in oldest + older + snap.events if isinstance(e, ev.UserMessage)]
        assert texts == [f"prompt {i}" for i in range(30)]
        assert (await client.page(1, 10)) == (1, [])
        await client.close()
    finally:
        await stop(host)


@pytest.mark.parametrize("garbage", [
    b"not json\n", b'{"frame":"attach","version":1,"bogus":1}\n', b'{"frame":"nope"}\n',
    b'{"frame":"command","id":1,"command":{"type":"prompt"}}\n',
    b"x" * (wire.MAX_FRAME_BYTES + 10) + b"\n", b"\xff\xfe\n"])
async def test_a_bad_frame_closes_only_that_client(tmp_path, garbage):
    h, host, path = await start_host(tmp_path, [{"text": "still here"}])
    try:
        good = await HostClient.connect(path)
        await good.open()
        reader, writer = await asyncio.open_unix_connection(os.fspath(path), limit=1 << 24)
        if not garbage.startswith(b'{"frame":"attach"') and b"nope" not in garbage \
                and not garbage.startswith(b"not") and not garbage.startswith(b"\xff"):
            writer.write(wire.encode(wire.Attach(version=wire.PROTOCOL_VERSION)))
            await reader.readuntil(b"\n")  # the snapshot
        writer.write(garbage)
        rest = await asyncio.wait_for(reader.read(), 10)
        bye = wire.decode_host(rest.strip().splitlines()[-1])
        assert isinstance(bye, wire.Bye) and bye.reason == "bad_frame"
        writer.close()
        reply = await good.handle(cmd.Prompt(text="go on"))
        assert reply.ok
        await wait_until(lambda: not h.session.busy)
        assert h.of(ev.AssistantText)[-1].text == "still here"
        assert not good.ended.is_set()
        await good.close()
    finally:
        await stop(host)


async def test_wrong_version_and_silent_client(tmp_path, monkeypatch):
    monkeypatch.setattr(wire, "HANDSHAKE_TIMEOUT_S", 0.2)
    h, host, path = await start_host(tmp_path, [])
    try:
        reader, writer = await asyncio.open_unix_connection(os.fspath(path))
        writer.write(b'{"frame":"attach","version":99}\n')
        bye = wire.decode_host(await reader.readline())
        assert isinstance(bye, wire.Bye) and bye.reason == "version"
        writer.close()
        reader, writer = await asyncio.open_unix_connection(os.fspath(path))
        silent = wire.decode_host(await asyncio.wait_for(reader.readline(), 5))
        assert isinstance(silent, wire.Bye) and silent.reason == "bad_frame"  # as documented
        assert await asyncio.wait_for(reader.read(), 5) == b""  # then closed
        writer.close()
        await wait_until(lambda: not host.clients)
    finally:
        await stop(host)


async def test_quit_from_a_client_ends_session_and_host(tmp_path):
    h, host, path = await start_host(tmp_path, [])
    client = await HostClient.connect(path)
    await client.open()
    asked = time.monotonic()
    assert (await client.handle(cmd.Quit())).ok
    await asyncio.wait_for(host.ended.wait(), 10)
    # it used to wait out a 2 s grace for its own idle watcher, on every Quit
    assert time.monotonic() - asked < 1.5
    await asyncio.wait_for(client.ended.wait(), 10)
    assert client.end_reason == "ended"
    assert h.of(ev.TurnState)[-1].state == "closing"
    assert not path.exists()
    reply = await client.handle(cmd.Prompt(text="too late"))
    assert not reply.ok and reply.code == "detached"


async def test_idle_host_without_client_ends_and_not_while_a_client_is_attached(tmp_path):
    h, host, path = await start_host(tmp_path, [], idle_timeout_s=0.3)
    client = await HostClient.connect(path)
    await asyncio.sleep(0.8)
    assert not host.ended.is_set()  # a client is attached
    await client.close()
    await asyncio.wait_for(host.ended.wait(), 5)
    assert host.end_reason == "idle"


async def test_connect_to_nothing_is_a_clear_error(tmp_path):
    with pytest.raises(HostGone, match="no session host"):
        await HostClient.connect(tmp_path / "absent.sock")

"""A client's frame nested past msgspec's depth limit is a bad frame like any other: the
client gets `bye bad_frame`, the host goes on serving the next one (scripts/fuzz found it
ending the connection's task with a RecursionError, no bye sent). A client that goes on
writing after its bad frame still reads its bye (the host closed with unread input, which
reset the connection before the bye could be read)."""

from __future__ import annotations

import asyncio
import json

from raw_tui.host import protocol as wire
from raw_tui.host.client import HostClient
from tests.host.test_host_engine import start_host, stop


async def test_a_frame_nested_too_deeply_gets_a_bye_and_the_host_goes_on(tmp_path):
    h, host, path = await start_host(tmp_path, [])
    try:
        reader, writer = await asyncio.open_unix_connection(str(path),
                                                            limit=wire.MAX_FRAME_BYTES)
        writer.write(json.dumps({"frame": "attach", "version": wire.PROTOCOL_VERSION}).encode()
                     + b"\n")
        writer.write(b'{"a":' * 5000 + b"null" + b"}" * 5000 + b"\n")
        await writer.drain()
        frames = []
        while line := await asyncio.wait_for(reader.readline(), 10):
            frames.append(wire.decode_host(line))
        writer.close()
        bye = frames[-1]
        assert isinstance(bye, wire.Bye) and bye.reason == "bad_frame"
        assert bye.message == "bad frame: nested too deeply"
        client = await HostClient.connect(path)  # the host still serves
        assert client.snapshot.info.session_id == h.session.session_id
        await client.close()
    finally:
        await stop(host)


async def test_a_client_that_goes_on_writing_after_a_bad_frame_still_reads_its_bye(tmp_path):
    h, host, path = await start_host(tmp_path, [])
    try:
        for _ in range(5):
            reader, writer = await asyncio.open_unix_connection(str(path), limit=1 << 24)
            writer.write(wire.encode(wire.Attach(version=wire.PROTOCOL_VERSION)))
            await reader.readuntil(b"\n")  # the snapshot
            writer.write(b"not json\n" + b'{"frame":"detach"}\n' * 50_000)  # ~1 MB after it
            await writer.drain()
            rest = await asyncio.wait_for(reader.read(), 10)  # no ConnectionResetError
            writer.close()
            bye = wire.decode_host(rest.strip().splitlines()[-1])
            assert isinstance(bye, wire.Bye) and bye.reason == "bad_frame"
        client = await HostClient.connect(path)  # the host still serves
        await client.close()
    finally:
        await stop(host)

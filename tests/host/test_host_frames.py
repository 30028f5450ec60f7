"""A client's frame nested past msgspec's depth limit is a bad frame like any other: the
client gets `bye bad_frame`, the host goes on serving the next one (scripts/fuzz found it
ending the connection's task with a RecursionError, no bye sent)."""

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

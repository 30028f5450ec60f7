"""A session host under tool code that misbehaves: `sys.exit` or `KeyboardInterrupt` from a
handler is that call's error and the host goes on; a module that blocks at import does not
wedge the host (a client's Cancel ends the turn at once, Quit ends the session)."""

from __future__ import annotations

import asyncio
import time

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.host.client import HostClient
from tests.host.test_host_engine import start_host, stop, wait_until

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
TOOLS = {
    "exits": ("import sys\ndef handler(args, ctx):\n    sys.exit(4)\n", {"schema": TEXT}),
    "interrupts": ("def handler(args, ctx):\n    raise KeyboardInterrupt\n", {"schema": TEXT}),
    # sleeps at import far past any deadline here (a daemon thread: it never holds up exit)
    "stuck": ("import time\ntime.sleep(3600)\ndef handler(args, ctx):\n    return 'ran'\n",
              {"schema": TEXT}),
}


def calls(*names):
    return {"tool_calls": [{"id": f"c_{name}", "name": name, "arguments": {"text": "x"}}
                           for name in names]}


async def test_a_handler_that_exits_does_not_end_the_host(tmp_path):
    h, host, path = await start_host(
        tmp_path, [calls("exits", "interrupts"), {"text": "after them"}], tools=TOOLS,
        use=["agent/exits", "agent/interrupts"])
    try:
        client = await HostClient.connect(path)
        seen: list[ev.Event] = []
        client.bus.subscribe(seen.append)
        await client.open()
        assert (await client.handle(cmd.Prompt(text="go"))).ok
        await wait_until(lambda: any(isinstance(e, ev.RunEnd) for e in seen))
        results = {e.call_id: e for e in seen if isinstance(e, ev.ToolResultEvent)}
        assert results["c_exits"].content[0]["text"] == "exits failed: SystemExit: 4"
        assert results["c_interrupts"].content[0]["text"] == \
            "interrupts failed: KeyboardInterrupt"
        assert [e.status for e in seen if isinstance(e, ev.RunEnd)] == ["completed"]
        assert not host.ended.is_set()
        assert (await client.handle(cmd.Prompt(text="again"))).ok  # the session goes on
        await client.close()
    finally:
        await stop(host)


async def test_a_module_blocking_at_import_does_not_wedge_the_host(tmp_path):
    h, host, path = await start_host(tmp_path, [calls("stuck")], tools=TOOLS,
                                     use=["agent/stuck"])
    try:
        client = await HostClient.connect(path)
        seen: list[ev.Event] = []
        client.bus.subscribe(seen.append)
        await client.open()
        assert (await client.handle(cmd.Prompt(text="go"))).ok
        await wait_until(lambda: any(isinstance(e, ev.ToolCall) for e in seen))
        await asyncio.sleep(0.3)  # importing now
        asked = time.monotonic()
        assert (await asyncio.wait_for(client.handle(cmd.Cancel()), 5)).ok
        await wait_until(lambda: any(isinstance(e, ev.RunEnd) for e in seen), timeout=5)
        assert time.monotonic() - asked < 3
        assert [e.code for e in seen if isinstance(e, ev.ToolResultEvent)] == ["cancelled"]
        await asyncio.wait_for(client.handle(cmd.Quit()), 10)
        await asyncio.wait_for(host.ended.wait(), 10)
        await client.close()
    finally:
        await stop(host)

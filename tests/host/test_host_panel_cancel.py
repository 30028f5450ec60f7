"""Through the session host (a real Unix socket): a client's Cancel ends a panel tool action
waiting for its approval (denied, its handler never runs) at once (issue 18, item 1)."""

from __future__ import annotations

import asyncio
import time

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.host.client import HostClient
from tests.engine.session_kit import agent_config
from tests.engine.test_panel_action_cancel import ASK, PANELS, SLOW
from tests.host.test_host_engine import start_host, stop, wait_until


async def test_a_host_client_cancels_a_panel_action_waiting_for_approval(tmp_path):
    config = agent_config(tmp_path, use=["agent/slow"], rules=ASK,
                          tools={"slow": (SLOW, {"panels": PANELS})})
    h, host, path = await start_host(tmp_path, [], config=config)
    try:
        client = await HostClient.connect(path)
        seen: list[ev.Event] = []
        client.bus.subscribe(seen.append)
        await client.open()
        action = asyncio.ensure_future(client.handle(cmd.PanelAction(
            panel="agent/slow#board", action="go")))
        await wait_until(lambda: any(isinstance(e, ev.ApprovalRequest) for e in seen))
        call_id = next(e.call_id for e in seen if isinstance(e, ev.ApprovalRequest))
        began = time.monotonic()
        assert (await client.handle(cmd.Cancel())).ok
        reply = await asyncio.wait_for(action, 5)
        assert time.monotonic() - began < 1.5
        assert not reply.ok and reply.code == "approval_denied"
        late = await client.handle(cmd.ApprovalAnswer(call_id=call_id, allow=True))
        assert not late.ok
        await asyncio.sleep(0.2)
        assert not (tmp_path / "work" / "started").exists()
        await client.close()
    finally:
        await stop(host)

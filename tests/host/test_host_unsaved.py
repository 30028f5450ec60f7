"""A history write that fails under a session host (the UI's session): said once, plainly,
with the history's path, the error and the event not saved; the running turn is cancelled
and no new turn starts (raw_tui/session/unsaved.py, docs/sessions.md). Another process holds
the database locked past the store's bound while a bash call runs."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.host.client import HostClient
from raw_tui.paths import state_home
from raw_tui.session.store import BUSY_TIMEOUT_S
from tests.host.host_kit import alive, bash_call, setup, start, until, wait_gone

LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(600)
"""


async def test_a_history_write_that_fails_stops_the_turn_and_says_so(tmp_path):
    args = setup(tmp_path, [bash_call("sleep 2"), {"text": "after the call"}],
                 sandbox={"mode": "off"})
    host = start(args)
    locker = None
    try:
        client = await HostClient.connect(host.socket)
        seen: list[ev.Event] = []
        client.bus.subscribe(seen.append)
        await client.open()
        assert (await client.handle(cmd.Prompt(text="run it"))).ok
        await until(lambda: any(isinstance(e, ev.ToolCall) for e in seen))
        history = state_home() / "history.sqlite3"
        locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(history)],
                                  stdout=subprocess.PIPE, text=True)
        assert locker.stdout.readline() == "locked\n"
        await until(lambda: any(isinstance(e, ev.RunEnd) for e in seen), BUSY_TIMEOUT_S + 40)
        (end,) = [e for e in seen if isinstance(e, ev.RunEnd)]
        assert end.status == "cancelled"
        assert not [e for e in seen if isinstance(e, ev.AssistantText)
                    and e.text == "after the call"]  # the turn went no further
        errors = [e.message for e in seen if isinstance(e, ev.Notice) and e.level == "error"]
        assert errors == [f"history {history}: database is locked (tool_result not saved): "
                          f"the session is no longer saved; its turn was cancelled and no "
                          f"new turn starts"], errors
        reply = await client.handle(cmd.Prompt(text="again"))
        assert not reply.ok and reply.code == "history_error"
        assert reply.message == (f"history {history}: database is locked (tool_result not "
                                 f"saved): the session is no longer saved, no new turn starts")
        await asyncio.sleep(0.5)
        assert not [e for e in seen if isinstance(e, ev.UserMessage) and e.text == "again"]
        assert alive(host.pid)  # open to read; Ctrl+Q ends it
        assert (await client.handle(cmd.Quit())).ok
        assert wait_gone(host.pid, 40)
    finally:
        if locker is not None:
            locker.kill()
            locker.wait()
        if alive(host.pid):
            os.kill(host.pid, signal.SIGKILL)
            wait_gone(host.pid)

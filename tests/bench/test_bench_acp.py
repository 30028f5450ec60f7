"""Issue 14 benchmarks: what ACP adds to a turn, and to start-up.

(a) A scripted turn of 20 tool calls over ACP (the SDK's in-memory transport, a client that
    records every update) against the same turn headless: target ≤ 1.3×.
(b) `raw-tui acp` from process start to the `initialize` reply against `raw-tui config list`:
    target ≤ 1.5×.

Ratios against baselines measured in the same run; the printed numbers are the result."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import acp

from raw_tui.protocol import bus as ev
from raw_tui.models.scripted import ScriptedModel
from raw_tui.session.session import Session
from raw_tui.session.store import HistoryStore
from acp._transport import memory_transport_pair

from raw_tui.acp.agent import RawAgent, connect
from tests.bench.bench_kit import report
from tests.config_kit import write_config, write_tool

CALLS = 20
REPEAT = 40


def _config(tmp_path: Path):
    from raw_tui.config import load_config

    cfg = tmp_path / "cfg"
    write_tool(cfg, "noop", "def handler(args, ctx):\n    return 'ok'\n",
               schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    write_config(cfg, {"tools": {"use": ["agent/noop"]}, "max_steps": 5})
    return load_config(str(cfg / "raw.json"), cwd=tmp_path)


def _lines():
    calls = [{"name": "noop", "arguments": {"n": i}, "id": f"c{i}"} for i in range(CALLS)]
    return [{"text": "Running twenty calls.", "tool_calls": calls}, {"text": "Done."}]


def test_a_20_call_turn_over_acp_against_headless(tmp_path):
    """Both turns run in one event loop, alternately, with the same history store. Headless
    is `raw-tui run --output jsonl`'s turn: its events written as JSONL (to /dev/null); over
    ACP they go to the client as updates. The figure is CPU time of this process
    (`process_time`): on a shared 2-core machine the wall time of a 3 ms turn swings 20×
    with the neighbours' load; both are printed."""
    config = _config(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    store = HistoryStore(tmp_path / "history.sqlite3")

    def new_session(**kw):
        return Session(config, config.agent(), cwd=str(work), store=store,
                       provider=ScriptedModel.from_list(_lines()), **kw)

    devnull = open(os.devnull, "w")

    def jsonl(event) -> None:  # what `raw-tui run --output jsonl` writes for each event
        devnull.write(ev.encode(event).decode() + "\n")
        devnull.flush()

    async def headless() -> tuple[float, float]:
        session = new_session()
        session.bus.subscribe(jsonl)
        await session.open()
        clock = _Clock()
        outcome = await session.run_turn("go")
        spent = clock.spent()
        await session.close()
        assert outcome.status == "completed"
        return spent

    async def over_acp(conn) -> tuple[float, float]:
        reply = await conn.send_request("session/new", {"cwd": str(work), "mcpServers": []})
        clock = _Clock()
        reply = await conn.send_request("session/prompt", {
            "sessionId": reply["sessionId"], "prompt": [{"type": "text", "text": "go"}]})
        spent = clock.spent()
        assert reply["stopReason"] == "end_turn"
        return spent

    async def measure():
        def open_session(cwd, *, session_id=None, history=None, forms=False, mcp_servers=None,
                         previews=False):
            return new_session(interactive=True, session_id=session_id, history=history,
                               forms=forms, mcp_servers=mcp_servers, previews=previews)

        agent = RawAgent(open_session, store=store, version="bench")
        agent_end, client_end = memory_transport_pair()
        agent_conn = connect(agent, agent_end)
        conn = _BareClient(client_end)
        base, value = [], []
        try:
            await conn.send_request("initialize", {"protocolVersion": acp.PROTOCOL_VERSION})
            for _ in range(REPEAT):
                base.append(await headless())
                value.append(await over_acp(conn))
        finally:
            await agent.close()
            await conn.close()
            await agent_conn.close()
            store.close()
        calls = [m for m in conn.received
                 if m.get("params", {}).get("update", {}).get("sessionUpdate") == "tool_call"]
        assert len(calls) == CALLS * REPEAT
        return base, value

    try:
        base, value = asyncio.run(measure())
    finally:
        devnull.close()
    report("20-call turn over ACP vs headless, wall time", min(v[0] for v in value),
           min(b[0] for b in base))
    ratio = report("20-call turn over ACP (memory transport) vs headless, CPU time",
                   min(v[1] for v in value), min(b[1] for b in base), 1.3)
    assert ratio <= 1.3 * 1.25  # margin for a shared, noisy machine


class _BareClient:
    """The client end of the memory transport, doing as little as a client can: it records
    every message and matches replies to its requests. What is measured is the agent's work."""

    def __init__(self, transport) -> None:
        self.transport = transport
        self.received: list[dict] = []
        self.pending: dict[int, asyncio.Future] = {}
        self.next_id = 0
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while (message := await self.transport.receive()) is not None:
            self.received.append(message)
            if "method" not in message and message.get("id") in self.pending:
                self.pending.pop(message["id"]).set_result(message)

    async def send_request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        await self.transport.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                                   "params": params})
        reply = await future
        assert "result" in reply, reply
        return reply["result"]

    async def close(self) -> None:
        self.reader.cancel()
        await self.transport.close()


class _Clock:
    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def spent(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def _first_line_time(argv: list[str], stdin: bytes | None, env: dict) -> float:
    """Seconds from process start to its first line on stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.stdout.read()
    proc.wait(timeout=60)
    assert line, "no output"
    return elapsed


def test_acp_start_to_initialize_against_config_list(tmp_path, isolated_home):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/read_file", "builtin/write_file"]}})
    config = str(cfg / "raw.json")
    env = dict(os.environ)
    request = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                          "params": {"protocolVersion": 1,
                                     "clientCapabilities": {"fs": {"readTextFile": True}}}})
    acp_argv = [sys.executable, "-m", "raw_tui.cli", "--config", config, "acp"]
    list_argv = [sys.executable, "-m", "raw_tui.cli", "--config", config, "config", "list"]
    acp_times, list_times = [], []
    for _ in range(5):  # interleaved, so load on the machine hits both alike
        acp_times.append(_first_line_time(acp_argv, (request + "\n").encode(), env))
        list_times.append(_first_line_time(list_argv, None, env))
    ratio = report("raw-tui acp start → initialize reply vs config list", min(acp_times),
                   min(list_times), 1.5)
    assert ratio <= 1.5 * 1.25

"""Issue 13 benchmarks: a call through the gate against a direct `ClientSession.call_tool` on
the same connection; `config list` with MCP servers defined but none selected; the UI's first
frame with two stdio servers selected."""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.config_kit import write_config
from tests.mcpgate.mcp_kit import fixture_server, load, mcp_config


ROUNDS = 15


def _gate_against_direct(tmp_path, server: dict, n: int) -> tuple[float, float, float]:
    """(per call through the gate, per direct ClientSession.call_tool, the ratio) on one
    connection: an `ask` rule with a predicate to evaluate, no hooks. Rounds of `n` calls
    each way, side by side (which goes first alternates); the times are the medians and the
    ratio is the median of each round's ratio, so a burst of load on this shared machine
    moves both sides of a round, not the figure."""
    from raw_tui.mcp.manager import McpManager, resolve_agent
    from raw_tui.tools.dispatch import Dispatcher

    config = load(mcp_config(tmp_path, {"srv": server}, ["mcp/srv/echo"], rules=[
        {"match": "mcp/*", "effect": "ask",
         "when": {"source": "arguments", "any": "value", "regex": "^danger"}}]), tmp_path)

    async def measure() -> tuple[float, float]:
        manager = McpManager(cwd=str(tmp_path))
        manager.add_servers(config.mcp.servers)
        agent, warnings, _ = await resolve_agent(config.agent(), manager)
        assert not warnings, warnings
        dispatcher = Dispatcher(agent, cwd=str(tmp_path))
        session = manager.connection("srv").session
        try:
            async def gate():
                for _ in range(n):
                    done = await dispatcher.dispatch("mcp/srv/echo", {"value": "hi"},
                                                     call_id="c")
                    assert not done.result.isError, done.result

            async def direct():
                for _ in range(n):
                    await session.call_tool("echo", {"value": "hi"})

            async def timed(batch) -> float:
                start = time.perf_counter()
                await batch()
                return (time.perf_counter() - start) / n

            await gate(), await direct()  # warm
            gates, directs = [], []
            for round_ in range(ROUNDS):
                if round_ % 2:
                    directs.append(await timed(direct))
                    gates.append(await timed(gate))
                else:
                    gates.append(await timed(gate))
                    directs.append(await timed(direct))
            ratio = statistics.median(g / d for g, d in zip(gates, directs))
            return statistics.median(gates), statistics.median(directs), ratio
        finally:
            await manager.close()

    return asyncio.run(measure())


def test_a_call_through_the_gate_against_a_direct_call_tool(tmp_path):
    """The target (≤ 1.2×) holds for a server written with the SDK (MCPServer: a call takes
    milliseconds). Against the hand-written fixture, whose calls take ~0.4 ms, the gate's
    fixed cost (~0.1 ms: validation, policy, events, the cancel watch) shows more: reported,
    with a looser bound."""
    from tests.mcpgate.mcp_kit import SDK_FIXTURE

    sdk = {"transport": "stdio", "command": sys.executable, "args": [SDK_FIXTURE, "echo"]}
    ours, theirs, ratio = _gate_against_direct(tmp_path / "sdk", sdk, 20)
    _print("MCP call through the gate vs ClientSession.call_tool (MCPServer)", ours, theirs,
           ratio, 1.2)
    fast_ours, fast_theirs, fast = _gate_against_direct(tmp_path / "fx", fixture_server(), 50)
    _print("the same against the hand-written fixture (0.4 ms calls)", fast_ours, fast_theirs,
           fast)
    assert ratio <= 1.2 * 1.25
    assert fast <= 3.0  # informational: the fixed cost over a 0.4 ms call, on a noisy machine


def _print(name: str, ours: float, theirs: float, ratio: float,
           target: float | None = None) -> None:
    goal = f" (target ≤ {target}×)" if target is not None else ""
    print(f"\n[bench] {name}: {ours * 1e6:.1f} µs vs baseline {theirs * 1e6:.1f} µs (medians) "
          f"→ {ratio:.2f}× (median of {ROUNDS} paired rounds){goal}")


def _wall(cmd: list[str], cwd) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def test_config_list_with_unselected_mcp_servers(tmp_path):
    from tests.bench.bench_kit import report

    servers = {f"s{i}": fixture_server() for i in range(8)}
    with_servers = mcp_config(tmp_path / "a", servers, ["builtin/read_file"])
    without = write_config(tmp_path / "b" / "cfg", {"tools": {"use": ["builtin/read_file"]}})
    cli = [sys.executable, "-m", "raw_tui.cli", "config", "list", "--config"]
    _wall(cli + [str(with_servers)], tmp_path), _wall(cli + [str(without)], tmp_path)
    ours, theirs = [], []
    for _ in range(7):
        ours.append(_wall(cli + [str(with_servers)], tmp_path))
        theirs.append(_wall(cli + [str(without)], tmp_path))
    ratio = report("config list, 8 MCP servers defined, none selected, vs none defined",
                   min(ours), min(theirs), 1.05)
    assert ratio <= 1.05 * 1.1


def test_first_frame_with_two_stdio_servers_selected():
    from tests.bench.test_bench_ui import RAW_TUI, first_frame_after

    root = Path(tempfile.mkdtemp(prefix="rt-bench-mcp-"))
    try:
        env = dict(os.environ, TERM="xterm-256color")
        for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            env[var] = str(root / var.lower())
        servers = {"fx": fixture_server(), "fy": fixture_server(MCP_LABEL="fy")}
        two = mcp_config(root / "two", servers, ["builtin/read_file", "mcp/fx/echo",
                                                  "mcp/fy/echo"])
        none = mcp_config(root / "none", servers, ["builtin/read_file"])
        argv = [str(RAW_TUI), "--no-detach"] if _has_no_detach() else [str(RAW_TUI)]
        first_frame_after(argv + ["--config", str(two)], root, env)  # warm
        ours, theirs = [], []
        for _ in range(7):  # interleaved, best of each (this machine is noisy)
            ours.append(first_frame_after(argv + ["--config", str(two)], root, env)[0])
            theirs.append(first_frame_after(argv + ["--config", str(none)], root, env)[0])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ratio = min(ours) / min(theirs)
    print(f"\n[bench] first frame with two stdio MCP servers selected {min(ours):.2f} s vs "
          f"none {min(theirs):.2f} s → {ratio:.2f}× (target ≤ 1.1×)")
    assert ratio <= 1.1 * 1.2


def _has_no_detach() -> bool:
    from raw_tui.cli.parse import build_parser

    return "--no-detach" in build_parser().format_help()


def test_a_gated_call_takes_no_more_event_loop_turns_than_a_direct_one(tmp_path):
    """The part of the gate's cost a busy machine cannot blur: each event-loop turn is a
    wake-up (an epoll call, cold caches). A gated call used to take ~12 turns against ~9 for
    `call_tool` (the handler and the cancel watch ran in tasks of their own); now the same,
    within one."""
    from raw_tui.mcp.manager import McpManager, resolve_agent
    from raw_tui.tools.dispatch import Dispatcher

    config = load(mcp_config(tmp_path, {"srv": fixture_server()}, ["mcp/srv/echo"]),
                  tmp_path)
    n = 100

    async def measure() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        turns = [0]
        run_once = loop._run_once  # type: ignore[attr-defined]

        def counted() -> None:
            turns[0] += 1
            run_once()

        manager = McpManager(cwd=str(tmp_path))
        manager.add_servers(config.mcp.servers)
        try:
            agent, _, _ = await resolve_agent(config.agent(), manager)
            dispatcher = Dispatcher(agent, cwd=str(tmp_path))
            session = manager.connection("srv").session
            loop._run_once = counted  # type: ignore[attr-defined]
            for _ in range(n):
                await dispatcher.dispatch("mcp/srv/echo", {"value": "hi"}, call_id="c")
            gated, turns[0] = turns[0] / n, 0
            for _ in range(n):
                await session.call_tool("echo", {"value": "hi"})
            return gated, turns[0] / n
        finally:
            loop._run_once = run_once  # type: ignore[attr-defined]
            await manager.close()

    gated, direct = asyncio.run(measure())
    print(f"\n[bench] event-loop turns per MCP call: gated {gated:.1f}, direct {direct:.1f}")
    assert gated <= direct + 1.0

"""Bash's sandbox: what the boundary and the overlay cost over a direct run (mode off), each
measured through dispatch in the same run. The overlay round trip (run in the layer, read it,
commit) should stay within 10 ms of the direct run on an idle machine (printed: a shared,
loaded machine cannot show it), and cost little over the plain boundary; a dry run + commit
in a 5,000-file workspace within 10x of the direct run."""

from __future__ import annotations

import asyncio

from raw_tui.config import load_config
from raw_tui.tools.dispatch import Dispatcher
from tests.config_kit import write_config
from tests.sandbox.sandbox_kit import needs_sandbox  # noqa: F401


class Yes:
    async def approve(self, request):
        return True


def dispatcher(tmp_path, name, ws, mode, rules=()):
    cfg = tmp_path / name
    agent_cfg = {"tools": {"use": ["builtin/bash"], "rules": list(rules)},
                 "sandbox": {"mode": mode}}
    write_config(cfg, agent_cfg)
    agent = load_config(str(cfg / "raw.json"), cwd=ws).agent()
    return Dispatcher(agent, cwd=str(ws), approver=Yes())


def timed(loop, d, command, repeat=7):
    import time

    async def once():
        report = await d.dispatch("bash", {"commands": [{"command": command}]}, call_id="b")
        assert report.outcome == "ran" and not report.result.isError, report.result

    loop.run_until_complete(once())  # warm
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        loop.run_until_complete(once())
        best = min(best, time.perf_counter() - start)
    return best


def test_sandboxed_true_and_a_write_against_a_direct_run(tmp_path, needs_sandbox):
    from tests.bench.bench_kit import report

    ws = tmp_path / "ws"
    ws.mkdir()
    loop = asyncio.new_event_loop()
    try:
        modes = {mode: dispatcher(tmp_path, mode, ws, mode)
                 for mode in ("off", "workspace", "overlay")}
        for command in ("true", "echo x > f"):
            direct = timed(loop, modes["off"], command)
            plain = timed(loop, modes["workspace"], command)
            overlay = timed(loop, modes["overlay"], command)
            report(f"bash {command!r} in mode workspace", plain, direct)
            report(f"bash {command!r} in mode overlay (run, read, commit)", overlay, direct)
            # the 10 ms target holds for an idle machine; on a shared, loaded one the figure
            # is printed, and the overlay (layer, scan, commit) must not cost much more than
            # the plain boundary it runs in
            print(f"[bench] overlay round trip over direct: {(overlay - direct) * 1000:.1f} ms"
                  " (target ≤ 10 ms on an idle machine)")
            assert overlay <= plain * 3
    finally:
        loop.close()


def test_dry_run_and_commit_in_a_5000_file_workspace(tmp_path, needs_sandbox):
    from tests.bench.bench_kit import report

    ws = tmp_path / "ws"
    for d in range(50):
        folder = ws / f"dir{d}"
        folder.mkdir(parents=True)
        for f in range(100):
            (folder / f"file{f}.txt").write_text(f"{d} {f}\n")
    loop = asyncio.new_event_loop()
    try:
        # the direct run takes about 3 ms, the sandboxed one about 8x that (bubblewrap and
        # the overlay mounts are most of it): the best of 15 keeps one slow spawn out of it
        direct = timed(loop, dispatcher(tmp_path, "off", ws, "off"),
                       "echo x >> dir3/file7.txt", repeat=15)
        ask = [{"match": "builtin/bash", "effect": "ask"}]
        previewed = timed(loop, dispatcher(tmp_path, "overlay", ws, "overlay", ask),
                          "echo x >> dir3/file7.txt", repeat=15)
        ratio = report("dry run + approval + commit in 5,000 files", previewed, direct, 10)
        assert ratio <= 10 * 1.5  # the target is 10×; a 2-3 ms baseline on a noisy machine
    finally:
        loop.close()

#!/usr/bin/env python3
"""Leak soak: bash timeouts and cancels and hook timeouts, each leaving double-forked,
setsid and background children, then count what survived.

    .venv/bin/python scripts/leak_soak.py [--bash 1000] [--hooks 1000] [--parallel 8]

Runs the real `builtin/bash` handler and the real hook runner (a hook is a `bash -c` script
from a hook folder) in one raw-tui process, `--parallel` at a time. Every process started
carries a marker argument (`sleep MARK`); at the end, after a settle time, the live
processes holding the marker are the survivors (zombies do not count: they have ended; the
zombie children of this process, adopted orphans never reaped, are printed apart). Prints one
line of figures; exits 1 when anything survived.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from raw_tui.frozen import freeze  # noqa: E402
from raw_tui.hooks import load_hooks, run_hook  # noqa: E402
from raw_tui.tools.context import ToolContext  # noqa: E402
from raw_tui.tools.proctree import all_procs  # noqa: E402
from raw_tui.tools.registry import BUILTIN_DIR, load_tool  # noqa: E402

PAYLOAD = b'{"protocol_version":2,"event":"PreToolUse","cwd":"/"}'


def shapes(mark: str) -> list[str]:
    """What a command leaves behind: each shape ends with a long foreground sleep."""
    sleep = f"sleep {mark}"
    return [
        f"(setsid {sleep} &); {sleep}",  # double fork into a new session
        f"(setsid {sleep} >/dev/null 2>&1 &); ({sleep} &); {sleep}",
        f"{sleep} & {sleep} & wait",  # background children in the group
        f"setsid bash -c '({sleep} &); {sleep}' & {sleep}",  # a new session that forks again
        f"nohup {sleep} >/dev/null 2>&1 & {sleep}",  # a daemon started before the timeout
        f"bash -c 'trap \"\" TERM; {sleep}' & {sleep}",  # ignores SIGTERM
    ]


def live_marked(mark: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            args = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        if any(mark.encode() in arg for arg in args) and \
                state[state.rfind(b")") + 2:][:1] not in (b"Z", b"X"):
            found.append(int(name))
    return found


def zombie_children() -> int:
    me = os.getpid()
    return sum(p.state == b"Z" and p.ppid == me for p in all_procs())


async def bash_case(tool, work: Path, command: str, kind: str, rng: random.Random) -> str:
    ctx = ToolContext(cwd=str(work), tool_call_id="soak")
    if kind == "timeout":
        args = {"commands": [{"command": command, "timeout_ms": rng.randint(30, 300)}]}
        result = await tool.module().handler(freeze(args), ctx)
        return result.get("code", "ok")
    task = asyncio.ensure_future(tool.module().handler(freeze({"commands": [
        {"command": command}]}), ctx))
    await asyncio.sleep(rng.uniform(0.01, 0.3))
    ctx.cancelled.set()
    result = await task
    return result.get("code", "ok")


def write_hooks(root: Path, mark: str) -> list:
    hooks = []
    for index, command in enumerate(shapes(mark)):
        folder = root / "hooks" / f"h{index}"
        folder.mkdir(parents=True)
        (folder / "hook.json").write_text(json.dumps({
            "protocol_version": 2, "name": f"h{index}", "events": [{"name": "PreToolUse"}],
            "command": "bash", "args": ["-c", command], "timeout_ms": 100}))
        hooks.append(f"agent/h{index}")
    hookset = load_hooks(hooks, config_dir=root, tools={}, where=["soak"], file="soak")
    return hookset


async def soak(bash_count: int, hook_count: int, parallel: int, seed: int) -> dict:
    rng = random.Random(seed)
    mark = str(rng.randrange(10**8, 10**9))
    tool = load_tool("builtin/bash", BUILTIN_DIR / "bash")
    root = Path(tempfile.mkdtemp(prefix="raw-tui-soak-"))
    work = root / "work"
    work.mkdir()
    hookset = write_hooks(root, mark)
    hooks = [hookset.get(f"agent/h{i}") for i in range(len(shapes(mark)))]
    jobs = [("bash", "timeout" if i % 2 == 0 else "cancel") for i in range(bash_count)]
    jobs += [("hook", "timeout")] * hook_count
    rng.shuffle(jobs)
    outcomes: dict[str, int] = {}
    limit = asyncio.Semaphore(parallel)

    async def one(job: tuple[str, str]) -> None:
        async with limit:
            shape = rng.randrange(len(shapes(mark)))
            if job[0] == "bash":
                code = await bash_case(tool, work, shapes(mark)[shape], job[1], rng)
            else:
                run = await run_hook(hooks[shape], PAYLOAD, gate=True, cwd=str(work))
                code = run.code or run.outcome
            key = f"{job[0]} {job[1]}: {code}"
            outcomes[key] = outcomes.get(key, 0) + 1

    started = time.monotonic()
    await asyncio.gather(*(one(job) for job in jobs))
    elapsed = time.monotonic() - started
    await asyncio.sleep(1.0)  # settle: signals delivered, orphans re-parented
    survivors = live_marked(mark)
    for pid in survivors:  # never leave them behind, whatever the figure says
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    hookset.close()
    return {"bash": bash_count, "hooks": hook_count, "survivors": len(survivors),
            "zombies": zombie_children(), "seconds": round(elapsed, 1), "outcomes": outcomes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bash", type=int, default=1000, help="bash timeouts and cancels")
    parser.add_argument("--hooks", type=int, default=1000, help="hook timeouts")
    parser.add_argument("--parallel", type=int, default=8)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args(argv)
    figures = asyncio.run(soak(args.bash, args.hooks, args.parallel, args.seed))
    print(f"leak soak (seed {args.seed}): {figures['bash']} bash timeouts and cancels, "
          f"{figures['hooks']} hook timeouts in {figures['seconds']} s: "
          f"survivors {figures['survivors']}, unreaped zombies {figures['zombies']}")
    for key, count in sorted(figures["outcomes"].items()):
        print(f"  {key}: {count}")
    return 1 if figures["survivors"] else 0


if __name__ == "__main__":
    sys.exit(main())

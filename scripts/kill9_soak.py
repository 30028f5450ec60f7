#!/usr/bin/env python3
"""`kill -9` soak: SIGKILL `raw-tui run` at random moments of a scripted multi-tool turn,
then compare what it had published with what `sessions show` has stored.

    .venv/bin/python scripts/kill9_soak.py [--kills 50]

What was published is what `run --output jsonl` wrote on stdout before it died: the history
store is the bus's first subscriber (each event committed before any other subscriber sees
it), so every line read from the pipe, even after the kill, must be in the store, in order.
Each kill lands at a uniformly random moment of the turn: after the run's first event, by a
delay drawn between 0 and the length of a full turn (measured first, from its first event). Prints one line of figures; exits 1 when an event
was lost.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def scripted_turn() -> list[dict]:
    """Three model steps, seven tool calls of three tools, then a final answer."""
    def call(name: str, arguments: dict) -> dict:
        return {"name": name, "arguments": arguments}

    write = {"operations": [{"mode": "overwrite", "path": "notes.txt",
                             "content": "".join(f"line {i}\n" for i in range(50))}]}
    return [
        {"text": "Looking around first.", "tool_calls": [
            call("bash", {"commands": [{"command": "echo one; sleep 0.1; echo two"}]}),
            call("write_file", write),
            call("read_file", {"path": "notes.txt", "limit": 5})]},
        {"text": "Now counting.", "tool_calls": [
            call("bash", {"commands": [{"command": "wc -l notes.txt"},
                                       {"command": "sleep 0.1; seq 1 200"}]}),
            call("read_file", {"path": "notes.txt", "offset": 40}),
            call("bash", {"commands": [{"command": "ls -la; sleep 0.05"}]})]},
        {"text": "One more look.", "tool_calls": [
            call("read_file", {"path": "notes.txt", "offset": 10, "limit": 2})]},
        {"text": "All done: the notes have fifty lines."},
    ]


def setup(root: Path) -> tuple[Path, Path, dict[str, str]]:
    cfg = root / "cfg"
    cfg.mkdir(parents=True)
    (cfg / "script.jsonl").write_text("".join(json.dumps(step) + "\n"
                                              for step in scripted_turn()))
    (cfg / "raw.json").write_text(json.dumps({
        "default_agent": "main",
        "models": {"m": {"method": "scripted", "script": "script.jsonl"}},
        "agents": {"main": {"model": "m", "max_steps": 8, "tools": {
            "use": ["builtin/bash", "builtin/write_file", "builtin/read_file"],
            "rules": [{"match": "*", "effect": "allow"}]}}}}))
    env = dict(os.environ)
    for var, sub in (("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"),
                     ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        env[var] = str(root / sub)
    return cfg / "raw.json", root, env


def raw_tui(env: dict[str, str], *args: str) -> list[str]:
    return [sys.executable, "-m", "raw_tui.cli", *args]


def one_run(config: Path, root: Path, env: dict[str, str], kill_after: float | None):
    """Start a run in a fresh working directory and SIGKILL it `kill_after` seconds after
    its first event (None: let it finish); the events it wrote and how long its turn took
    from the first event on."""
    work = Path(tempfile.mkdtemp(dir=root, prefix="w"))
    proc = subprocess.Popen(raw_tui(env, "--config", str(config), "--cwd", str(work), "run",
                                    "go", "--output", "jsonl"),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            cwd=REPO)
    lines: list[bytes] = []
    first = threading.Event()

    def read() -> None:
        for line in iter(proc.stdout.readline, b""):
            lines.append(line)
            first.set()
        first.set()

    reader = threading.Thread(target=read)
    reader.start()
    first.wait(timeout=120)
    started = time.monotonic()
    try:
        proc.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    turn = time.monotonic() - started
    reader.join()
    return [json.loads(line) for line in lines if line.endswith(b"\n")], turn


def stored(env: dict[str, str], session_id: str) -> list[dict]:
    shown = subprocess.run(raw_tui(env, "sessions", "show", session_id), env=env, cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    if shown.returncode != 0:
        return []
    return [json.loads(line) for line in shown.stdout.splitlines()]


def lost(published: list[dict], kept: list[dict]) -> int:
    """Published events missing from the store (in order: the store's first events must be
    exactly the published ones). `tool_output` is live only, never stored."""
    published = [e for e in published if e["type"] != "tool_output"]
    missing = 0
    for index, event in enumerate(published):
        if index >= len(kept) or kept[index] != event:
            missing = len(published) - index
            break
    return missing


def soak(kills: int, seed: int) -> dict:
    rng = random.Random(seed)
    root = Path(tempfile.mkdtemp(prefix="raw-tui-kill9-"))
    config, root, env = setup(root)
    full, turn_s = one_run(config, root, env, None)
    ends = [e for e in full if e["type"] == "run_end"]
    assert [e["status"] for e in ends] == ["completed"], "the scripted turn did not complete"
    totals = {"kills": 0, "published": 0, "lost": 0, "full_events": len(full),
              "turn_s": round(turn_s, 2), "each": [], "silent": 0}
    for _ in range(kills):
        published, _ = one_run(config, root, env, rng.uniform(0, turn_s))
        totals["kills"] += 1
        if not published:  # it wrote nothing at all (it failed to start): say so
            totals["silent"] += 1
            continue
        totals["published"] += len(published)
        totals["each"].append(len(published))
        totals["lost"] += lost(published, stored(env, published[0]["session_id"]))
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args(argv)
    figures = soak(args.kills, args.seed)
    print(f"kill -9 soak (seed {args.seed}): {figures['kills']} kills over a "
          f"{figures['full_events']}-event turn of {figures['turn_s']} s; "
          f"{figures['published']} events published before the kills "
          f"({min(figures['each'], default=0)}–{max(figures['each'], default=0)} a run); "
          f"runs that wrote nothing {figures['silent']}; events lost {figures['lost']}")
    return 1 if figures["lost"] or figures["silent"] else 0


if __name__ == "__main__":
    sys.exit(main())

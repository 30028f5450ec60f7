"""A long-lived raw-tui is a child subreaper: bubblewrap's namespace init, which outlives
the bwrap that waited for it, ends as raw-tui's own child. Every sandboxed call and the
availability probe must reap it, or each bash call leaves zombies behind for the life of
the session (and every later hook's clean-up took them for leftovers)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from tests.sandbox.sandbox_kit import config, needs_sandbox  # noqa: F401

SCRIPT = textwrap.dedent('''
    import asyncio, json, os, sys, time
    from raw_tui.config import load_config
    from raw_tui.tools import proctree
    from raw_tui.tools.dispatch import Dispatcher
    from raw_tui.tools.sandbox import availability

    proctree.become_subreaper()
    assert availability._probe().available
    agent = load_config(sys.argv[1], cwd=sys.argv[2]).agent()
    d = Dispatcher(agent, cwd=sys.argv[2])

    async def main():
        for n in range(4):
            report = await d.dispatch("bash", {"commands": [{"command": f"echo {n} >> f"}]},
                                      call_id=f"c{n}")
            assert report.outcome == "ran" and not report.result.isError, report

    asyncio.run(main())
    time.sleep(0.3)  # an init still ending is reaped by the next spawn, not left for ever
    proctree.reap()
    kids = proctree.own_children() or set()
    print(json.dumps(sorted(f"{proctree.comm(p)} {proctree.proc_stat(p).state.decode()}"
                            for p in kids if proctree.proc_stat(p))))
''')


def test_sandboxed_calls_and_the_probe_leave_no_zombie_child(tmp_path, needs_sandbox):
    cfg = config(tmp_path / "cfg")
    ws = tmp_path / "ws"
    ws.mkdir()
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(cfg), str(ws)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []
    assert (ws / "f").read_text() == "0\n1\n2\n3\n"

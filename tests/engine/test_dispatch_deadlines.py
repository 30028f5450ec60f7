"""validate_args, describe_effects and plain handlers that never return: each runs off the
event loop under a deadline, and the call stops with invalid_arguments / effects_error /
tool_error (or cancelled) while the loop keeps running. Also from outside: `raw-tui call`
stops on SIGINT while a validator spins."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.config import load_config
from raw_tui.tools import worker
from raw_tui.tools.dispatch import Deadlines, Dispatcher
from tests.engine.misbehaving_tools import TEXT_SCHEMA
from tests.config_kit import write_config, write_tool

# Never returns within any deadline here, yet ends after a while: a test process must not
# keep threads spinning for ever (the subprocess test below spins for real).
SPIN = ("    import time\n    end = time.monotonic() + 3\n    while time.monotonic() < end:\n"
        "        time.sleep(0.01)\n")
EFFECTS_SCHEMA = {"type": "object"}


@pytest.fixture
def agent(tmp_path):
    cfg = tmp_path / "cfg"
    write_tool(cfg, "spin_validate", "import os\ndef validate_args(args):\n"
               "    if os.environ.get('SPIN_MARK'):\n"
               "        open(os.environ['SPIN_MARK'], 'w').close()\n"
               "        while True:\n            pass\n" + SPIN +
               "def handler(args, ctx):\n    return 'ran'\n", schema=TEXT_SCHEMA)
    write_tool(cfg, "spin_effects", "def describe_effects(args, ctx):\n" + SPIN +
               "def handler(args, ctx):\n    return 'ran'\n", schema=TEXT_SCHEMA,
               effects_schema=EFFECTS_SCHEMA)
    write_tool(cfg, "spin_handler", "def handler(args, ctx):\n" + SPIN, schema=TEXT_SCHEMA)
    write_tool(cfg, "polite", '''
        import time
        def handler(args, ctx):
            while not ctx.cancelled.is_set():
                time.sleep(0.01)
            return "saw the cancel"
    ''', schema=TEXT_SCHEMA)
    write_tool(cfg, "fast", "def validate_args(args):\n    return None\n"
               "def describe_effects(args, ctx):\n    return {'n': 1}\n"
               "def handler(args, ctx):\n    return 'quick'\n", schema=TEXT_SCHEMA,
               effects_schema=EFFECTS_SCHEMA)
    write_config(cfg, {"tools": {"use": ["agent/spin_validate", "agent/spin_effects",
                                         "agent/spin_handler", "agent/polite", "agent/fast"]}})
    return load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()


SHORT = Deadlines(validate_s=0.3, effects_s=0.3, handler_s=0.3)


async def dispatch(agent, tmp_path, name, *, deadlines=SHORT, cancel=None):
    events: list = []
    bus = ev.Bus()
    bus.subscribe(events.append)
    dispatcher = Dispatcher(agent, bus=bus, cwd=str(tmp_path), deadlines=deadlines)
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        report = await dispatcher.dispatch(name, {"text": "x"}, call_id="c1", cancel=cancel)
    finally:
        task.cancel()
    return report, events, ticks


@pytest.mark.parametrize("name,stage,code,text", [
    ("spin_validate", "validation", "invalid_arguments",
     "invalid arguments: validate_args did not return within 0.3 s"),
    ("spin_effects", "effects", "effects_error",
     "cannot describe spin_effects: describe_effects did not return within 0.3 s"),
    ("spin_handler", "handler", "tool_error",
     "spin_handler failed: the handler did not return within 0.3 s"),
])
async def test_code_that_never_returns_is_stopped_at_its_deadline(agent, tmp_path, name,
                                                                  stage, code, text):
    started = time.monotonic()
    report, events, ticks = await dispatch(agent, tmp_path, name)
    assert (report.stage, report.code, report.message) == (stage, code, text)
    assert time.monotonic() - started < 3
    assert ticks >= 10  # the event loop kept running meanwhile
    assert worker.stuck() >= 1
    notices = [e for e in events if isinstance(e, ev.Notice)]
    assert len(notices) == 1 and notices[0].level == "warning"
    assert "left running in its thread" in notices[0].message


@pytest.mark.parametrize("name,stage", [("spin_validate", "validation"),
                                        ("spin_effects", "effects"),
                                        ("spin_handler", "handler")])
async def test_a_cancel_stops_the_wait_at_once(agent, tmp_path, name, stage):
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.2, cancel.set)
    started = time.monotonic()
    report, _, _ = await dispatch(agent, tmp_path, name, cancel=cancel,
                                  deadlines=Deadlines(validate_s=60, effects_s=60,
                                                      handler_s=60, cancel_grace_s=0.2))
    assert (report.stage, report.code) == (stage, "cancelled")
    assert time.monotonic() - started < 3


async def test_a_plain_handler_that_watches_the_cancel_reports_its_outcome(agent, tmp_path):
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.2, cancel.set)
    report, _, _ = await dispatch(agent, tmp_path, "polite", cancel=cancel,
                                  deadlines=Deadlines(handler_s=60))
    assert report.outcome == "ran"
    assert report.result.content == [{"type": "text", "text": "saw the cancel"}]


async def test_quick_code_is_unaffected(agent, tmp_path):
    report, events, _ = await dispatch(agent, tmp_path, "fast")
    assert report.outcome == "ran" and report.result.content[0]["text"] == "quick"
    assert report.effects == {"n": 1}
    assert not [e for e in events if isinstance(e, ev.Notice)]


def test_sigint_stops_raw_tui_call_while_validate_args_spins(tmp_path, agent):
    cfg = tmp_path / "cfg"
    mark = tmp_path / "spinning"
    proc = subprocess.Popen(
        [sys.executable, "-m", "raw_tui.cli", "--config", str(cfg / "raw.json"), "--cwd",
         str(tmp_path), "call", "spin_validate", "--args", '{"text": "x"}'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "SPIN_MARK": str(mark)})
    try:
        deadline = time.monotonic() + 30
        while not mark.exists():  # spinning now (its deadline is 5 s)
            assert time.monotonic() < deadline
            time.sleep(0.02)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert json.loads(out)["code"] == "cancelled"
    assert took < 2.5


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs or more")
async def test_a_handler_and_what_it_starts_run_on_every_cpu_raw_tui_may_use(tmp_path):
    """A reused worker runs the handler with the caller's whole CPU set, and so does every
    process it starts: the worker is woken on the caller's CPU (tools/same_cpu.py) and lets
    go of it before the code runs; the caller has its CPUs back after the call."""
    cfg = tmp_path / "cfg"
    write_tool(cfg, "cpus", '''
        import os, subprocess, sys
        def handler(args, ctx):
            mine = sorted(os.sched_getaffinity(0))  # at once: within the quick hand-off
            child = subprocess.run([sys.executable, "-c",
                                    "import os; print(sorted(os.sched_getaffinity(0)))"],
                                   capture_output=True, text=True, check=True).stdout.strip()
            return f"{mine} {child}"
    ''', schema=TEXT_SCHEMA)
    write_config(cfg, {"tools": {"use": ["agent/cpus"]}})
    dispatcher = Dispatcher(load_config(str(cfg / "raw.json"), cwd=tmp_path).agent(),
                            cwd=str(tmp_path))
    every = sorted(os.sched_getaffinity(0))
    for n in range(3):  # the first call starts a worker; the next ones reuse it
        report = await dispatcher.dispatch("cpus", {"text": "x"}, call_id=f"c{n}")
        assert report.result.text() == f"{every} {every}"
    assert sorted(os.sched_getaffinity(0)) == every

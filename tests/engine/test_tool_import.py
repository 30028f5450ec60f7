"""A tool's module is imported at first use in a worker thread under its deadline: top-level
code that spins or raises never runs on the event loop, each stage reports it with its own
code, one import serves concurrent calls, and the import writes nothing into the tool folder.
(From outside, with signals: tests/e2e/test_hostile_tool_code.py.)"""

from __future__ import annotations

import asyncio
import sys

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.config import load_config
from raw_tui.tools.dispatch import Deadlines, Dispatcher
from tests.config_kit import write_config, write_tool

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}
# spins well past every deadline here, then ends (a test process keeps no spinning thread)
SPIN_TOP = ("import time\nend = time.monotonic() + 3\nwhile time.monotonic() < end:\n"
            "    pass\n")
FUNCS = {"validate": "def validate_args(args):\n    return None\n",
         "effects": "def describe_effects(args, ctx):\n    return {}\n"}
HANDLER = "def handler(args, ctx):\n    return 'ran'\n"


@pytest.fixture
def agent(tmp_path):
    cfg = tmp_path / "cfg"
    write_tool(cfg, "load_handler", SPIN_TOP + HANDLER, schema=TEXT)
    write_tool(cfg, "load_validate", SPIN_TOP + FUNCS["validate"] + HANDLER, schema=TEXT)
    write_tool(cfg, "load_effects", SPIN_TOP + FUNCS["effects"] + HANDLER, schema=TEXT,
               effects_schema={"type": "object"})
    write_tool(cfg, "counted", "import builtins\n"
               "builtins.raw_tui_imports = getattr(builtins, 'raw_tui_imports', 0) + 1\n"
               "import time\ntime.sleep(0.3)\n" + HANDLER, schema=TEXT)
    write_tool(cfg, "broken", "raise SystemExit('no import for you')\n" + HANDLER, schema=TEXT)
    write_config(cfg, {"tools": {"use": ["agent/load_handler", "agent/load_validate",
                                         "agent/load_effects", "agent/counted",
                                         "agent/broken"]}})
    return load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()


async def dispatch(agent, tmp_path, name, *, call_id="c1", deadlines=None):
    events: list = []
    bus = ev.Bus()
    bus.subscribe(events.append)
    dispatcher = Dispatcher(agent, bus=bus, cwd=str(tmp_path),
                            deadlines=deadlines or Deadlines(load_s=0.3))
    ticks = 0

    async def ticker():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        report = await dispatcher.dispatch(name, {"text": "x"}, call_id=call_id)
    finally:
        task.cancel()
    return report, events, ticks


@pytest.mark.parametrize("name,stage,code,message", [
    ("load_handler", "handler", "tool_error",
     "load_handler failed: its module did not load within 0.3 s"),
    ("load_validate", "validation", "invalid_arguments",
     "invalid arguments: its module did not load within 0.3 s"),
    ("load_effects", "effects", "effects_error",
     "cannot describe load_effects: its module did not load within 0.3 s"),
])
async def test_a_module_that_spins_at_import_is_the_stage_s_error(agent, tmp_path, name, stage,
                                                                  code, message):
    report, events, ticks = await dispatch(agent, tmp_path, name)
    assert (report.stage, report.code, report.message) == (stage, code, message)
    assert ticks >= 3  # the loop kept running while the module spun (on today's code: 0)
    (notice,) = [e for e in events if isinstance(e, ev.Notice)]
    assert notice.message.startswith(f"{name}: the import of its module did not return "
                                     "within 0.3 s and is left running in its thread")


async def test_concurrent_first_calls_share_one_import(agent, tmp_path):
    import builtins

    first, second = await asyncio.gather(
        dispatch(agent, tmp_path, "counted", call_id="a", deadlines=Deadlines()),
        dispatch(agent, tmp_path, "counted", call_id="b", deadlines=Deadlines()))
    assert first[0].result.content[0]["text"] == second[0].result.content[0]["text"] == "ran"
    assert builtins.raw_tui_imports == 1
    del builtins.raw_tui_imports


async def test_an_import_that_raises_system_exit_is_the_call_s_error(agent, tmp_path):
    report, _, _ = await dispatch(agent, tmp_path, "broken")
    assert (report.outcome, report.code) == ("ran", "tool_error")
    assert report.message == "broken failed: SystemExit: no import for you"
    # and the next call says the same (nothing half-imported is kept)
    again, _, _ = await dispatch(agent, tmp_path, "broken", call_id="c2")
    assert again.message == report.message


async def test_the_import_writes_no_bytecode_beside_the_tool(agent, tmp_path):
    before = sys.dont_write_bytecode
    report, _, _ = await dispatch(agent, tmp_path, "counted", deadlines=Deadlines())
    assert report.result.content[0]["text"] == "ran"
    assert not list((tmp_path / "cfg" / "tools" / "counted").rglob("__pycache__"))
    assert sys.dont_write_bytecode == before

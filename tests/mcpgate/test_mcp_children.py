"""Every process an MCP stdio server started ends with it when raw-tui ends, as bash's do:
a child left in its group and a child in its own session (`setsid`), when the server exits
on its closed stdin. `raw-tui call`, `raw-tui run` (real subprocesses), and a session closed
in process (what the UI and its session host do)."""

from __future__ import annotations

import json
import os

import pytest

from tests.config_kit import raw_tui
from tests.proctree_kit import kill_marked, marker, survivors, with_marker

from .mcp_kit import call_line, fixture_server, load, mcp_config
from tests.engine.session_kit import make_session


@pytest.fixture
def mark():
    value = marker()
    yield value
    kill_marked(value)


def config(tmp_path, mark, **env):
    return mcp_config(tmp_path, {"fx": fixture_server(MCP_CHILDREN=mark, **env)},
                      ["mcp/fx/echo"], script=[call_line("fx", "echo", {"value": "hi"}),
                                               {"text": "Done."}])


def test_call_ends_the_children_of_its_mcp_server(tmp_path, mark):
    path = config(tmp_path, mark)
    proc = raw_tui("--config", str(path), "--cwd", str(tmp_path), "call", "mcp/fx/echo",
                   "--args", json.dumps({"value": "hi"}))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["content"][0]["text"] == "fx:echo:hi"
    assert survivors(mark) == []


def test_run_ends_the_children_of_its_mcp_server(tmp_path, mark):
    path = config(tmp_path, mark)
    proc = raw_tui("--config", str(path), "--cwd", str(tmp_path), "run", "go", "--output",
                   "jsonl")
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()
               if json.loads(line)["type"] == "tool_result"]
    assert results[0]["content"][0]["text"] == "fx:echo:hi"
    assert survivors(mark) == []


async def test_closing_a_session_ends_the_children_of_its_mcp_servers(tmp_path, mark):
    harness = make_session(tmp_path, [call_line("fx", "echo", {"value": "hi"}),
                                      {"text": "Done."}],
                           config=load(config(tmp_path, mark), tmp_path))
    before = _zombie_children()  # what earlier tests in this process left is not ours
    await harness.session.open()
    try:
        await harness.session.run_turn("go")
        assert len(with_marker(mark)) == 2  # both running while the session lives
    finally:
        await harness.session.close()
    assert survivors(mark) == []
    assert _zombie_children() - before == set()


def _zombie_children() -> set[int]:
    return {int(p) for p in os.listdir("/proc") if p.isdigit() and _zombie_child(int(p))}


def _zombie_child(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    fields = stat[stat.rfind(b")") + 2:].split()
    return fields[0] == b"Z" and int(fields[1]) == os.getpid()

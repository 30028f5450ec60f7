"""A headless run stopped by SIGTERM or SIGHUP ends its MCP servers too, even one that
outlives its closed stdin and ignores SIGTERM (its process group is killed)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from .mcp_kit import alive, call_line, fixture_server, kill_quietly, mcp_config


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_servers_of_a_headless_run(tmp_path, sig):
    pid_file = tmp_path / "fx.pid"
    path = mcp_config(tmp_path, {"fx": fixture_server(MCP_PID_FILE=str(pid_file),
                                                        MCP_IGNORE_EOF="1")},
                      ["mcp/fx/echo"], script=[call_line("fx", "echo", {"value": "hang"})])
    proc = subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "--config", str(path), "run",
                             "go", "--output", "jsonl"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    pid = None
    try:
        for line in proc.stdout:  # wait until the call is running
            if json.loads(line)["type"] == "tool_call":
                break
        pid = int(pid_file.read_text())
        assert alive(pid)
        time.sleep(0.2)
        proc.send_signal(sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid)
    finally:
        if proc.poll() is None:
            proc.kill()
        if pid is not None:
            kill_quietly(pid)

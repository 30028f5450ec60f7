"""Helpers for the MCP tests: configs naming the fixture servers, a session over them."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from raw_tui.config import load_config
from raw_tui.mcp.config import alias
from tests.engine.session_kit import make_session
from tests.config_kit import REPO, alive, write_config, write_script

FIXTURE = str(REPO / "tests" / "servers" / "mcp_fixture.py")
SDK_FIXTURE = str(REPO / "tests" / "servers" / "mcp_sdk_fixture.py")


def fixture_server(**env: str) -> dict[str, Any]:
    """A stdio server entry running the hand-written fixture (`MCP_*` settings in env)."""
    server: dict[str, Any] = {"transport": "stdio", "command": sys.executable,
                              "args": [FIXTURE]}
    if env:
        server["env"] = env
    return server


@pytest.fixture
def http_server():
    """The SDK fixture served over streamable HTTP on a free port: its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, SDK_FIXTURE, "http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


def mcp_config(tmp_path: Path, servers: dict[str, dict], use: list[str], *,
               rules: list | None = None, hooks: list[str] | None = None,
               script: list | None = None) -> Path:
    cfg = tmp_path / "cfg"
    agent: dict[str, Any] = {"tools": {"use": use, "rules": rules or []}}
    if hooks:
        agent["hooks"] = {"use": hooks}
    path = write_config(cfg, agent, extra={"mcp": {"servers": servers}})
    if script is not None:
        write_script(cfg, *script)
    return path


def load(path: Path, tmp_path: Path):
    return load_config(str(path), cwd=tmp_path)


def mcp_session(tmp_path: Path, servers: dict[str, dict], use: list[str], lines: list[Any],
                **kw: Any):
    config = load(mcp_config(tmp_path, servers, use, rules=kw.pop("rules", None),
                             hooks=kw.pop("hooks", None)), tmp_path)
    return make_session(tmp_path, lines, config=config, **kw)


def call_line(server: str, tool: str, arguments: dict, call_id: str = "c1") -> dict:
    """A scripted model line calling an MCP tool by its alias."""
    return {"tool_calls": [{"name": alias(server, tool), "arguments": arguments,
                            "id": call_id}]}


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass

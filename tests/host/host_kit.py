"""Helpers for host tests with real processes: a config with a scripted model, starting a
host as `raw-tui` does, waiting for processes to go."""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path
from typing import Any

from raw_tui.protocol import bus as ev
from raw_tui.host.launch import Started, start_host
from raw_tui.session.request import SessionRequest
from tests.config_kit import alive, write_config, write_script

ASK_WRITE = [{"match": "builtin/write_file", "effect": "ask"}]


def write_call(path: str, call_id: str = "c1") -> dict:
    return {"tool_calls": [{"id": call_id, "name": "write_file", "arguments": {
        "operations": [{"mode": "overwrite", "path": path, "content": "hi\n"}]}}]}


def bash_call(command: str, call_id: str = "b1", timeout_ms: int | None = None) -> dict:
    one: dict[str, Any] = {"command": command}
    if timeout_ms:
        one["timeout_ms"] = timeout_ms
    return {"tool_calls": [{"id": call_id, "name": "bash",
                            "arguments": {"commands": [one]}}]}


def setup(tmp_path: Path, lines: list[dict], *, ui: dict | None = None,
          hooks: list | None = None, sandbox: dict | None = None) -> argparse.Namespace:
    cfg = tmp_path / "cfg"
    write_script(cfg, *lines)
    agent: dict[str, Any] = {"tools": {"use": ["builtin/read_file", "builtin/write_file",
                                               "builtin/bash"], "rules": ASK_WRITE}}
    if hooks:
        agent["hooks"] = hooks
    if sandbox is not None:
        agent["sandbox"] = sandbox
    write_config(cfg, agent, extra={"ui": ui} if ui else None)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return argparse.Namespace(config=str(cfg / "raw.json"), agent=None, model=None,
                              cwd=str(work), cwd_path=work, continue_=False, resume=None)


def request_of(args: argparse.Namespace) -> SessionRequest:
    """The SessionRequest the command line would build from these options."""
    return SessionRequest(cwd=args.cwd_path, config=args.config, agent=args.agent,
                          model=args.model, continue_=args.continue_, resume=args.resume,
                          no_detach=getattr(args, "no_detach", False))


def start(args: argparse.Namespace) -> Started:
    return start_host(request_of(args), timeout=60)


def reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def wait_gone(pid: int, timeout: float = 20) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reap(pid)
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


async def until(predicate, timeout: float = 20) -> None:
    async def poll():
        while not predicate():
            await asyncio.sleep(0.02)
    await asyncio.wait_for(poll(), timeout)


def kinds(events: list[ev.Event]) -> list[str]:
    return [type(e).__name__ for e in events]

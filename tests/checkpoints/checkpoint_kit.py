"""Helpers for the checkpoint tests: a session of scripted turns through the real command
line (`raw-tui run`, `--continue`), each turn one tool call and a closing line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.config_kit import raw_tui, write_config, write_script
from tests.sandbox.sandbox_kit import tree  # noqa: F401  (kind, mode, content, links of a tree)


def write(*ops: dict) -> dict:
    return {"name": "write_file", "arguments": {"operations": list(ops)}}


def patch(text: str) -> dict:
    return {"name": "write_file", "arguments": {"patch": text}}


def bash(*commands: str) -> dict:
    return {"name": "bash", "arguments": {"commands": [{"command": c} for c in commands]}}


class Session:
    """A config whose scripted model makes one call per turn (`calls`), in `work`."""

    def __init__(self, tmp: Path, calls: list[dict], *, sandbox: dict | None = None,
                 ui: dict | None = None) -> None:
        self.cfg_dir = tmp / "cfg"
        self.work = tmp / "work"
        self.work.mkdir(exist_ok=True)
        lines: list[dict] = []
        for i, c in enumerate(calls):
            lines.append({"text": "", "tool_calls": [{"id": f"c{i + 1}", **c}]})
            lines.append({"text": f"done {i + 1}"})
        write_script(self.cfg_dir, *lines)
        agent: dict[str, Any] = {"tools": {"use": ["builtin/bash", "builtin/write_file"],
                                           "rules": []}}
        if sandbox is not None:
            agent["sandbox"] = sandbox
        self.cfg = write_config(self.cfg_dir, agent, extra={"ui": ui} if ui else None)
        self.turns = 0
        self.session_id: str | None = None

    def cli(self, *args: str, timeout: float = 120):
        return raw_tui("--config", str(self.cfg), "--cwd", str(self.work), *args,
                       timeout=timeout)

    def turn(self, config: Path | None = None) -> list[dict]:
        """The next turn; its JSONL events."""
        extra = ["--continue"] if self.turns else []
        cfg = str(config or self.cfg)
        proc = raw_tui("--config", cfg, "--cwd", str(self.work), "run",
                       f"turn {self.turns + 1}", "--output", "jsonl", *extra, timeout=120)
        assert proc.returncode == 0, proc.stderr
        events = [json.loads(line) for line in proc.stdout.splitlines()]
        self.turns += 1
        if self.session_id is None:
            self.session_id = next(e["session_id"] for e in events
                                   if e["type"] == "session_start")
        errors = [e for e in events if e["type"] == "tool_result" and e["isError"]]
        assert not errors, errors
        return events

    def undo(self, *extra: str) -> tuple[int, dict, str]:
        proc = self.cli("sessions", "undo", self.session_id, *extra)
        assert proc.stdout, proc.stderr
        return proc.returncode, json.loads(proc.stdout), proc.stderr

    def history(self) -> list[dict]:
        proc = self.cli("sessions", "show", self.session_id)
        return [json.loads(line) for line in proc.stdout.splitlines()]


def checkpoint_dir(session_id: str) -> Path:
    return Path(os.environ["XDG_STATE_HOME"]) / "raw-tui" / "checkpoints" / session_id

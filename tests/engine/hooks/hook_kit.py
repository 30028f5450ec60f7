"""Test helpers for hooks: hook folders written into tmp dirs, run as real processes."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from raw_tui.protocol.bus import Bus
from raw_tui.hooks import load_hooks

REPO = Path(__file__).resolve().parents[3]


def write_hook(config_dir: Path, name: str, script: str | None = None, *,
               events: list[Any] | None = None, manifest: dict[str, Any] | None = None,
               **fields: Any) -> Path:
    """hooks/<name>/hook.json + an executable `hook.py` (shebang: this interpreter)."""
    folder = config_dir / "hooks" / name
    folder.mkdir(parents=True, exist_ok=True)
    if script is not None:
        body = f"#!{sys.executable}\nimport json, os, sys, time, subprocess, signal\n" + textwrap.dedent(script)
        path = folder / "hook.py"
        path.write_text(body)
        path.chmod(0o755)
    doc = {
        "protocol_version": 2,
        "name": name,
        "events": [{"name": e} if isinstance(e, str) else e for e in (events or ["PreToolUse"])],
        "command": "./hook.py",
        **fields,
    }
    if manifest is not None:
        doc = manifest
    (folder / "hook.json").write_text(json.dumps(doc))
    return folder


@dataclass
class Tool:
    identity: str
    input_schema: dict = field(default_factory=lambda: {
        "type": "object",
        "properties": {"commands": {"type": "array", "items": {
            "type": "object", "properties": {"command": {"type": "string"}}}}},
    })
    condition_sources: tuple[str, ...] = ("arguments",)
    effects_schema: dict | None = None


BASH = Tool("builtin/bash")
WRITE = Tool(
    "builtin/write_file",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    condition_sources=("effects",),
    effects_schema={"type": "object", "properties": {"files": {"type": "array", "items": {
        "type": "object", "properties": {"path": {"type": "string"}}}}}},
)
READ = Tool("builtin/read_file", input_schema={"type": "object", "properties": {"path": {"type": "string"}}})
TOOLS = {t.identity: t for t in (BASH, WRITE, READ)}


def load(config_dir: Path, use: list[str], tools: dict | None = None):
    return load_hooks(use, config_dir=config_dir, tools=TOOLS if tools is None else tools,
                      where=["agents", "a", "hooks", "use"], file="raw.json")


class Recorder:
    def __init__(self, bus: Bus) -> None:
        self.events: list[Any] = []
        bus.subscribe(self.events.append)

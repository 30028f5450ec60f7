"""Helpers for engine-level session tests: a config on disk, a model that records every
request it gets, and a Session wired to an event list."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from raw_tui.protocol import bus as ev
from raw_tui.config import load_config
from raw_tui.models.base import Message, ToolDefinition, Usage
from raw_tui.models.scripted import ScriptedModel, script_from_list
from raw_tui.session.session import Session
from raw_tui.session.store import HistoryStore
from tests.config_kit import write_config

BASE = ["builtin/read_file", "builtin/write_file", "builtin/bash"]

NOOP_TOOL = '''
def handler(args, ctx):
    return "ok"
'''


@dataclass
class Request:
    messages: list[Message]
    tools: list[ToolDefinition]
    system: str | None

    def texts(self) -> list[str]:
        return [m.text for m in self.messages]

    def wire(self) -> str:
        """Everything the model was sent, as one string (to search for what must not be)."""
        import msgspec

        return msgspec.json.encode([self.messages, self.tools, self.system]).decode()


class RecordingModel(ScriptedModel):
    """A scripted model that keeps each request and may report Usage (`usage[n]` for the
    n-th request, 0-based) like a real provider."""

    def __init__(self, lines: list[Any], *, usage: dict[int, tuple[int, int]] | None = None,
                 delay_ms: int = 0) -> None:
        super().__init__(script_from_list(lines), delay_ms=delay_ms)
        self.requests: list[Request] = []
        self.usage = usage or {}

    async def stream(self, messages, tools, *, system=None):
        self.requests.append(Request(list(messages), list(tools), system))
        n = len(self.requests) - 1
        async for item in super().stream(messages, tools, system=system):
            if type(item).__name__ == "Done" and n in self.usage:
                yield Usage(*self.usage[n])
            yield item


def agent_config(tmp_path: Path, *, use: list[str] | None = None, rules: list | None = None,
                 tools: dict[str, str] | None = None, models: dict | None = None, **agent: Any):
    """Write raw.json (and `agent/<id>` tools from `tools`: id -> code) and load it."""
    from tests.config_kit import write_tool

    cfg = tmp_path / "cfg"
    cfg.mkdir(parents=True, exist_ok=True)
    for tool_id, spec in (tools or {}).items():
        code, kw = (spec, {}) if isinstance(spec, str) else spec
        write_tool(cfg, tool_id, code, **kw)
    write_config(cfg, {"tools": {"use": use or BASE, "rules": rules or []}, **agent},
                 models=models)
    return load_config(str(cfg / "raw.json"), cwd=tmp_path)


@dataclass
class Harness:
    session: Session
    model: RecordingModel
    events: list[ev.Event] = field(default_factory=list)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def kinds(self, skip=(ev.TurnState, ev.AssistantDelta, ev.ToolOutput)) -> list[str]:
        return [type(e).__name__ for e in self.events if not isinstance(e, skip)]

    async def wait_for(self, kind: type, count: int = 1, timeout: float = 10) -> Any:
        async def poll():
            while len(self.of(kind)) < count:
                await asyncio.sleep(0.005)
        await asyncio.wait_for(poll(), timeout)
        return self.of(kind)[count - 1]


def make_session(tmp_path: Path, lines: list[Any], *, config=None, interactive=False,
                 store: HistoryStore | None = None, history=None, session_id=None,
                 usage=None, delay_ms=0, cwd: Path | None = None, **agent_kw) -> Harness:
    config = config or agent_config(tmp_path, **agent_kw)
    model = RecordingModel(lines, usage=usage, delay_ms=delay_ms)
    bus = ev.Bus()
    events: list[ev.Event] = []
    bus.subscribe(events.append)
    work = cwd or tmp_path / "work"
    work.mkdir(parents=True, exist_ok=True)
    session = Session(config, config.agent(), cwd=str(work), bus=bus, store=store,
                      interactive=interactive, session_id=session_id, history=history,
                      provider=model)
    return Harness(session, model, events)


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)

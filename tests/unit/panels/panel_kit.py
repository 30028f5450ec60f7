"""Helpers and fixtures for the panel tests (a test module imports the fixtures it uses):
a bus that records, declarations, documents, tool loading."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from raw_tui.protocol.bus import Bus, PanelReceipt, PanelState
from raw_tui.panels import PanelHost, parse_declarations

BUILTIN = Path(__file__).resolve().parents[3] / "raw_tui" / "tools" / "builtin"
OWNER = "builtin/demo"


class Recorder:
    def __init__(self) -> None:
        self.bus = Bus()
        self.events: list = []
        self.bus.subscribe(self.events.append)

    def receipts(self) -> list[PanelReceipt]:
        return [e for e in self.events if isinstance(e, PanelReceipt)]

    def states(self) -> list[PanelState]:
        return [e for e in self.events if isinstance(e, PanelState)]


def declare(*specs: dict) -> list:
    return parse_declarations(list(specs), where=["panels"], file="tool.json")


def checklist_doc(n: int = 3, **extra) -> dict:
    items = [{"id": f"i{k}", "label": f"item {k}"} for k in range(n)]
    return {"title": "Plan", "blocks": [{"id": "c", "kind": "checklist", "items": items}],
            **extra}


def load_tool(name: str):
    """A built-in tool's module and its declarations, read from its folder."""
    folder = BUILTIN / name
    manifest = json.loads((folder / "tool.json").read_text())
    spec = importlib.util.spec_from_file_location(f"builtin_{name}", folder / "tool.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    declarations = parse_declarations(manifest.get("panels", []), where=["panels"],
                                      file=str(folder / "tool.json"))
    return module, manifest, declarations


@pytest.fixture
def rec() -> Recorder:
    return Recorder()


@pytest.fixture
def host(rec: Recorder) -> PanelHost:
    return PanelHost(rec.bus)


@pytest.fixture
def decls() -> list:
    return declare({"id": "plan", "title": "Plan", "context": "summary"},
                   {"id": "other", "title": "Other", "placement": "chat"})


@pytest.fixture
def call(host: PanelHost, decls: list):
    return host.open_call(owner=OWNER, declarations=decls, call_id="c1", source="model",
                          turn_id="t1")

"""Fixtures for hook tests (helpers live in hook_kit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hook_kit import Recorder, load
from raw_tui.protocol.bus import Bus
from raw_tui.hooks import HookDispatcher


@pytest.fixture
def bus() -> Bus:
    return Bus()


@pytest.fixture
def recorder(bus: Bus) -> Recorder:
    return Recorder(bus)


@pytest.fixture
def make_dispatcher(tmp_path, bus):
    made = []

    def make(use: list[str], config_dir: Path | None = None, tools: dict | None = None):
        hookset = load(config_dir or tmp_path, use, tools)
        dispatcher = HookDispatcher(hookset, bus, cwd=str(tmp_path), agent_id="coder",
                                    session_id="s1")
        made.append(hookset)
        return dispatcher

    yield make
    for hookset in made:
        hookset.close()



"""Fixtures for the panel tests (helpers live in panel_helpers.py)."""

from __future__ import annotations

import pytest

from raw_tui.panels import PanelHost

from panel_helpers import OWNER, Recorder, declare


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

"""Fixtures for the interaction tests (helpers live in interaction_helpers.py)."""

from __future__ import annotations

import asyncio

import pytest

from raw_tui.interactions import Interactions

from interaction_helpers import FakeSurface, Recorder, declarations


@pytest.fixture
def rec():
    return Recorder()


@pytest.fixture
def surface():
    return FakeSurface()


@pytest.fixture
def broker(rec, surface):
    return Interactions(rec.bus, surface)


@pytest.fixture
def ctx_interactions(broker):
    return broker.for_call(owner="builtin/ask_user", declarations=declarations(),
                           cancelled=asyncio.Event(), call_id="c1", turn_id="t1")

"""Helpers and fixtures for the interaction tests (a test module imports the fixtures it
uses): a fake surface, a recorder, forms."""

from __future__ import annotations

import asyncio

import pytest

from raw_tui.protocol.bus import Bus, InteractionRequest, InteractionSettled
from raw_tui.interactions import Interactions
from raw_tui.panels import parse_declarations

RESPONSES = [{"id": "submit", "label": "Submit", "kind": "response", "response": "submit"},
             {"id": "cancel", "label": "Cancel", "kind": "response", "response": "cancel"}]


class FakeSurface:
    """Records what the engine shows; the test answers through the broker."""

    def __init__(self) -> None:
        self.shown: list = []
        self.settled_calls: list = []
        self.showing = asyncio.Event()

    def show(self, view) -> None:
        self.shown.append(view)
        self.showing.set()

    def settled(self, request_id: str, status: str) -> None:
        self.settled_calls.append((request_id, status))

    async def next_view(self):
        await asyncio.wait_for(self.showing.wait(), 2)
        self.showing.clear()
        return self.shown[-1]


class Recorder:
    def __init__(self) -> None:
        self.bus = Bus()
        self.events: list = []
        self.bus.subscribe(self.events.append)

    def flow(self) -> list:
        return [(type(e).__name__, getattr(e, "status", None)) for e in self.events
                if isinstance(e, (InteractionRequest, InteractionSettled))]


def declarations(actions=RESPONSES):
    return parse_declarations([{"id": "ask", "title": "Question", "placement": "chat",
                                "actions": actions}], where=["panels"], file=None)


def form_document(*fields, extra_blocks=()):
    fields = fields or ({"id": "color", "kind": "single_select", "label": "Color",
                         "required": True,
                         "options": [{"id": "red", "label": "Red"},
                                     {"id": "blue", "label": "Blue"}]},)
    return {"title": "Pick", "blocks": [*extra_blocks,
                                        {"id": "f", "kind": "form", "fields": list(fields)}]}


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

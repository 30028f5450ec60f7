"""The built-in ask_user tool against a fake surface, and with none."""

from __future__ import annotations

import asyncio
import json

import pytest

from raw_tui.protocol.bus import Bus
from raw_tui.frozen import freeze
from raw_tui.interactions import Interactions
from raw_tui.panels import PanelHost, checked_document, parse_declarations
from raw_tui.tools.context import ToolContext

from interaction_kit import FakeSurface

from pathlib import Path
import importlib.util

FOLDER = Path(__file__).resolve().parents[3] / "raw_tui" / "tools" / "builtin" / "ask_user"
MANIFEST = json.loads((FOLDER / "tool.json").read_text())
_spec = importlib.util.spec_from_file_location("builtin_ask_user", FOLDER / "tool.py")
ASK = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ASK)
DECLS = parse_declarations(MANIFEST["panels"], where=["panels"], file=str(FOLDER / "tool.json"))
OWNER = "builtin/ask_user"

QUESTIONS = {"title": "Setup", "questions": [
    {"id": "lang", "text": "Which language?", "options": [
        {"id": "py", "label": "Python"}, {"id": "go", "label": "Go"}], "free_text": True},
    {"id": "tools", "text": "Which tools?", "multi": True, "options": [
        {"id": "lint", "label": "Linter"}, {"id": "fmt", "label": "Formatter"},
        {"id": "ci", "label": "CI"}]},
    {"id": "why", "text": "Anything else?", "required": False},
]}


def context(broker, cancelled=None):
    cancelled = cancelled or asyncio.Event()
    host = PanelHost(broker.bus)
    return ToolContext(
        cwd="/tmp", tool_call_id="c1", cancelled=cancelled, identity=OWNER,
        panels=host.open_call(owner=OWNER, declarations=DECLS, call_id="c1", source="model",
                              turn_id="t1"),
        interactions=broker.for_call(owner=OWNER, declarations=DECLS, cancelled=cancelled,
                                     call_id="c1", turn_id="t1"))


def test_manifest_and_document():
    assert MANIFEST["name"] == "ask_user" and len(MANIFEST["description"]) < 200
    (d,) = DECLS
    assert d.placement == "chat" and d.responds()
    document = checked_document(ASK.build_document(freeze(QUESTIONS)))
    fields = document["blocks"][0]["fields"]
    assert [(f["id"], f["kind"], f.get("required")) for f in fields] == [
        ("lang", "single_select", True), ("lang_text", "text", False),
        ("tools", "multi_select", True), ("why", "text", False)]
    assert document["title"] == "Setup"


def test_validate_args():
    v = ASK.validate_args
    assert v(QUESTIONS) is None
    assert v({"questions": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}) == (
        "questions[1].id: duplicate id 'a'")
    assert v({"questions": [{"id": "a", "text": "x", "multi": True}]}) == (
        "questions[0]: multi and free_text need options")
    assert v({"questions": [
        {"id": "a", "text": "x", "options": [{"id": "o", "label": "O"}], "free_text": True},
        {"id": "a_text", "text": "y"}]}) == "questions[1].id: duplicate id 'a_text'"
    assert v({"questions": [{"id": "a" * 28, "text": "x", "free_text": True,
                             "options": [{"id": "o", "label": "O"}]}]}) == (
        "questions[0].id: at most 27 characters with free_text")
    assert v({"questions": [{"id": "a", "text": "x", "options": [
        {"id": "o", "label": "O"}, {"id": "o", "label": "P"}]}]}) == (
        "questions[0].options: duplicate option id")


async def test_answered_through_a_surface():
    surface = FakeSurface()
    broker = Interactions(Bus(), surface)
    task = asyncio.ensure_future(ASK.handler(freeze(QUESTIONS), context(broker)))
    view = await surface.next_view()
    with pytest.raises(Exception) as info:
        broker.answer(view.request_id, {"lang": "py"}, "k")
    assert str(info.value) == "tools: required"
    broker.answer(view.request_id, {"lang": "go", "lang_text": "and Rust",
                                    "tools": ["ci", "lint"]}, "k")
    assert await task == {"status": "answered", "answers": {
        "lang": "go", "lang_text": "and Rust", "tools": ["lint", "ci"]}}


@pytest.mark.parametrize("how, code", [("cancel", "interaction_cancelled"),
                                       ("turn", "interaction_cancelled"),
                                       ("expire", "interaction_expired"),
                                       ("close", "interaction_interrupted")])
async def test_non_answers_are_errors(how, code):
    surface = FakeSurface()
    broker = Interactions(Bus(), surface)
    cancelled = asyncio.Event()
    args = dict(QUESTIONS, timeout_ms=40 if how == "expire" else 60000)
    task = asyncio.ensure_future(ASK.handler(freeze(args), context(broker, cancelled)))
    view = await surface.next_view()
    if how == "cancel":
        broker.cancel(view.request_id)
    elif how == "turn":
        cancelled.set()
    elif how == "close":
        broker.close()
    result = await task
    assert result["isError"] and result["code"] == code
    assert result["content"][0]["type"] == "text"


async def test_no_surface_gives_interaction_unavailable_at_once():
    broker = Interactions(Bus(), None)
    result = await asyncio.wait_for(ASK.handler(freeze(QUESTIONS), context(broker)), 0.5)
    assert result == {"isError": True, "code": "interaction_unavailable", "content": [
        {"type": "text", "text": "no one can answer: this run is not interactive"}]}


async def test_no_interactions_object_at_all():
    ctx = ToolContext(cwd="/tmp", tool_call_id="c")
    result = await ASK.handler(freeze(QUESTIONS), ctx)
    assert result["code"] == "interaction_unavailable"

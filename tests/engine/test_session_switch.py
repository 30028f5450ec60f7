"""Switching the agent or the model from a client (issue 11): the next turns run with them,
the status line hears of it (`agent_model`), and a resumed session keeps the choice."""

from __future__ import annotations

import json

import pytest
from msgspec.structs import replace

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.session.open import open_session
from raw_tui.session.request import SessionRequest
from raw_tui.session.store import HistoryStore


@pytest.fixture
def setup(tmp_path):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    for name, text in (("one.jsonl", "from model one"), ("two.jsonl", "from model two")):
        (cfg / name).write_text(json.dumps({"text": text}) + "\n")
    (cfg / "raw.json").write_text(json.dumps({
        "default_agent": "main",
        "models": {"one": {"method": "scripted", "script": "one.jsonl"},
                   "two": {"method": "scripted", "script": "two.jsonl"}},
        "agents": {"main": {"model": "one", "tools": {"use": ["builtin/read_file"]}},
                   "reviewer": {"model": "two", "max_steps": 3,
                                "tools": {"use": ["builtin/bash"]}}}}))
    work = tmp_path / "work"
    work.mkdir()
    return SessionRequest(config=str(cfg / "raw.json"), cwd=work)


def collect(session) -> list[ev.Event]:
    events: list[ev.Event] = []
    session.bus.subscribe(events.append)
    return events


async def test_switch_model_runs_the_next_turn_on_it(setup):
    session, _ = open_session(setup, interactive=True, store=HistoryStore())
    events = collect(session)
    assert (session.info.agents, session.info.models) == (["main", "reviewer"], ["one", "two"])

    reply = await session.handle(cmd.SwitchModel(model="two"))

    assert reply.ok
    switch = [e for e in events if isinstance(e, ev.AgentModel)]
    assert [(e.agent, e.model) for e in switch] == [("main", "two")]
    assert (session.info.agent, session.info.model) == ("main", "two")
    assert [t.identity for t in session.agent.tools.tools] == ["builtin/read_file"]
    await session.run_turn("hello")
    assert [e.text for e in events if isinstance(e, ev.AssistantText)] == ["from model two"]
    await session.close()


async def test_switch_agent_takes_its_tools_limits_and_model(setup):
    session, _ = open_session(setup, interactive=True, store=HistoryStore())
    events = collect(session)

    assert (await session.handle(cmd.SwitchAgent(agent="reviewer"))).ok

    assert (session.info.agent, session.info.model, session.info.max_steps) == (
        "reviewer", "two", 3)
    assert [t.name for t in session.agent.model_tools()] == ["bash"]
    assert [e.max_steps for e in events if isinstance(e, ev.TurnState)][-1] == 3
    assert session.hooks.agent_id == "reviewer"
    await session.run_turn("hello")
    assert [e.text for e in events if isinstance(e, ev.AssistantText)] == ["from model two"]
    await session.close()


async def test_unknown_names_and_a_running_turn_are_refused(setup):
    session, _ = open_session(setup, interactive=True, store=HistoryStore())
    events = collect(session)
    reply = await session.handle(cmd.SwitchModel(model="nope"))
    assert (reply.ok, reply.code, reply.message) == (False, "unknown_model", "unknown model 'nope'")
    reply = await session.handle(cmd.SwitchAgent(agent="nope"))
    assert (reply.ok, reply.code) == (False, "unknown_agent")
    session.provider.delay_ms = 50
    await session.handle(cmd.Prompt(text="slow"))
    reply = await session.handle(cmd.SwitchModel(model="two"))
    assert (reply.ok, reply.code) == (False, "busy")
    await session.wait_idle()
    assert not [e for e in events if isinstance(e, ev.AgentModel)]
    assert session.info.model == "one"
    await session.close()


async def test_a_resumed_session_keeps_the_switch_unless_told_otherwise(setup):
    store = HistoryStore()
    session, _ = open_session(setup, interactive=True, store=store)
    await session.handle(cmd.SwitchAgent(agent="reviewer"))
    await session.handle(cmd.SwitchModel(model="one"))
    await session.close()

    resumed, _ = open_session(replace(setup, continue_=True), interactive=True, store=store)
    assert (resumed.info.agent, resumed.info.model) == ("reviewer", "one")
    await resumed.close()
    named = replace(setup, continue_=True, agent="main")  # named on the command line: wins
    again, _ = open_session(named, interactive=True, store=store)
    assert (again.info.agent, again.info.model) == ("main", "one")
    await again.close()


async def test_a_switched_scripted_model_resumes_at_its_own_line(setup):
    cfg = setup.config.rsplit("/", 1)[0]
    with open(f"{cfg}/two.jsonl", "a") as script:
        script.write('{"text": "second line of two"}\n')
    store = HistoryStore()
    session, _ = open_session(setup, interactive=False, store=store)
    await session.run_turn("on one")
    await session.handle(cmd.SwitchModel(model="two"))
    await session.run_turn("on two")
    await session.close()
    resumed, _ = open_session(replace(setup, continue_=True), interactive=False, store=store)
    events = collect(resumed)
    await resumed.run_turn("again")
    assert [e.text for e in events if isinstance(e, ev.AssistantText)] == ["second line of two"]
    await resumed.close()

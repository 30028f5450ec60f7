"""The session answers each command through one table from command type to handler
(raw_tui/session/session.py), and the session package keeps one module per feature."""

from __future__ import annotations

from pathlib import Path

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.session import session as session_module
from raw_tui.session.session import HANDLERS

from tests.engine.session_kit import make_session

SESSION_DIR = Path(session_module.__file__).parent


def test_every_command_the_facade_defines_has_a_handler():
    commands = {c for c in vars(cmd).values() if isinstance(c, type)
                and issubclass(c, cmd.Command) and c is not cmd.Command}
    assert commands and commands == set(HANDLERS)


async def test_a_command_without_a_handler_is_refused_by_name(tmp_path):
    class Unheard(cmd.Command, tag="unheard"):
        pass

    h = make_session(tmp_path, [{"text": "hello"}])
    reply = await h.session.handle(Unheard())
    assert not reply.ok and reply.message == "unknown command Unheard"
    assert h.events == []  # nothing ran


async def test_the_table_runs_the_turn_and_the_switch_of_the_same_session(tmp_path):
    h = make_session(tmp_path, [{"text": "first"}, {"text": "second"}], interactive=True,
                     delay_ms=50)
    await h.session.open()
    assert (await h.session.handle(cmd.Prompt(text="hi"))).ok
    busy = await h.session.handle(cmd.SwitchModel(model="m"))
    assert (busy.ok, busy.code) == (False, "busy")  # refused while the turn runs
    await h.session.wait_idle()
    unknown = await h.session.handle(cmd.SwitchAgent(agent="nobody"))
    assert (unknown.ok, unknown.code) == (False, "unknown_agent")
    retry = await h.session.handle(cmd.Retry())
    assert retry.ok
    await h.session.wait_idle()
    assert [e.text for e in h.of(ev.AssistantText)] == ["first", "second"]
    assert [e.reason for e in h.of(ev.TurnRewind)] == ["retry"]
    await h.session.handle(cmd.Quit())
    closed = await h.session.handle(cmd.Prompt(text="again"))
    assert (closed.ok, closed.code) == (False, "closed")


def test_no_module_of_the_session_package_is_a_switchboard():
    sizes = {p.name: len(p.read_text().splitlines()) for p in SESSION_DIR.glob("*.py")}
    assert sizes["session.py"] < 300, sizes
    assert max(sizes.values()) <= 400, sizes

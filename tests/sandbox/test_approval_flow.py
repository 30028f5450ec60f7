"""The approval of a sandboxed bash call, in process: the request carries what the dry run
changed (and its output), approve commits without running again, a change made during the
approval refuses the commit (`sandbox_conflict`), cancel throws the layer away, and every
commit is followed by a `file_changes` event (write_file's too)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec

from raw_tui.protocol import bus as ev
from raw_tui.config import load_config
from raw_tui.tools.dispatch import Dispatcher
from tests.sandbox.sandbox_kit import ASK_ALL, config, needs_sandbox  # noqa: F401


class Approver:
    def __init__(self, allow: bool, during=None) -> None:
        self.allow, self.during = allow, during
        self.requests: list[ev.ApprovalRequest] = []

    async def approve(self, request):
        self.requests.append(request)
        if self.during:
            self.during()
        return self.allow


def setup(tmp_path: Path, rules=ASK_ALL, tools=None):
    cfg = config(tmp_path / "cfg", rules=rules, tools=tools)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a").write_text("old\n")
    agent = load_config(str(cfg), cwd=ws).agent()
    return agent, ws


async def dispatch(agent, ws, command, approver, cancel=None):
    events: list = []
    bus = ev.Bus()
    bus.subscribe(events.append)
    d = Dispatcher(agent, bus=bus, cwd=str(ws), approver=approver)
    report = await d.dispatch("bash", {"commands": [{"command": command}]}, call_id="c1",
                              cancel=cancel)
    return report, events


async def test_approve_commits_the_dry_run_without_running_again(tmp_path, needs_sandbox):
    agent, ws = setup(tmp_path)
    approver = Approver(True)
    report, events = await dispatch(agent, ws, "echo ran >> count; echo new >> a", approver)
    assert report.outcome == "ran" and not report.result.isError, report
    (request,) = approver.requests
    assert request.observed is not msgspec.UNSET and request.observed.previewed
    assert {f.path for f in request.observed.files} == {str(ws / "count"), str(ws / "a")}
    assert "+new" in request.observed.diff and "exit 0" in request.observed.output
    assert [f.path for f in request.preview.files] == [str(ws / "a"), str(ws / "count")]
    assert (ws / "count").read_text() == "ran\n"  # once: the dry run's layer, committed
    assert (ws / "a").read_text() == "old\nnew\n"
    changes = [e for e in events if isinstance(e, ev.FileChanges)]
    assert len(changes) == 1 and changes[0].checkpoint is None
    assert {(f.path, f.operation) for f in changes[0].files} == {
        (str(ws / "count"), "write"), (str(ws / "a"), "write")}
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ApprovalRequest") < kinds.index("ToolResultEvent") < kinds.index(
        "FileChanges")


async def test_a_change_during_the_approval_refuses_the_commit(tmp_path, needs_sandbox):
    agent, ws = setup(tmp_path)
    approver = Approver(True, during=lambda: (ws / "a").write_text("edited meanwhile\n"))
    report, events = await dispatch(agent, ws, "echo new >> a; echo b > b", approver)
    assert report.result.isError and report.result.code == "sandbox_conflict", report
    assert str(ws / "a") in report.result.text()
    assert (ws / "a").read_text() == "edited meanwhile\n" and not (ws / "b").exists()
    assert not [e for e in events if isinstance(e, ev.FileChanges)]


async def test_deny_and_cancel_leave_the_workspace_untouched(tmp_path, needs_sandbox):
    agent, ws = setup(tmp_path)
    report, _ = await dispatch(agent, ws, "rm a; echo x > b", Approver(False))
    assert report.code == "approval_denied"
    assert (ws / "a").read_text() == "old\n" and not (ws / "b").exists()

    cancel = asyncio.Event()

    class Cancels:
        async def approve(self, request):
            cancel.set()
            await asyncio.sleep(10)

    report, _ = await dispatch(agent, ws, "rm a; echo x > b", Cancels(), cancel=cancel)
    assert report.code == "cancelled"
    assert (ws / "a").read_text() == "old\n" and not (ws / "b").exists()


async def test_touching_the_gate_asks_whatever_the_rules_say(tmp_path, needs_sandbox):
    cfg_dir = tmp_path / "ws"
    cfg_dir.mkdir()
    cfg = config(cfg_dir, rules=[{"match": "builtin/bash", "effect": "allow"}],
                 tools=["builtin/bash", "builtin/write_file"])
    agent = load_config(str(cfg), cwd=cfg_dir).agent()
    approver = Approver(False)
    report, _ = await dispatch(agent, cfg_dir, "mkdir -p tools/evil && echo x > tools/evil/t",
                               approver)
    assert report.code == "approval_denied" and approver.requests[0].reason == "protected_path"
    assert not (cfg_dir / "tools").exists()
    d = Dispatcher(agent, bus=ev.Bus(), cwd=str(cfg_dir), approver=approver)
    report = await d.dispatch("write_file", {"operations": [
        {"mode": "overwrite", "path": str(cfg), "content": "{}"}]}, call_id="c2")
    assert report.code == "approval_denied" and approver.requests[1].reason == "protected_path"


async def test_write_file_is_followed_by_file_changes(tmp_path):
    agent, ws = setup(tmp_path, rules=[], tools=["builtin/write_file"])
    events: list = []
    bus = ev.Bus()
    bus.subscribe(events.append)
    d = Dispatcher(agent, bus=bus, cwd=str(ws))
    report = await d.dispatch("write_file", {"operations": [
        {"mode": "overwrite", "path": "n.txt", "content": "x"}]}, call_id="w1")
    assert report.outcome == "ran" and not report.result.isError
    (change,) = [e for e in events if isinstance(e, ev.FileChanges)]
    assert change.call_id == "w1" and change.checkpoint is None
    assert [(f.path, f.operation) for f in change.files] == [(str(ws / "n.txt"), "write")]
    assert b'"checkpoint":null' in ev.encode(change)

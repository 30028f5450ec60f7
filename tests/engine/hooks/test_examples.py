"""The example hooks in the repository's hooks/ folder (guard, notify, log), run for real."""

from __future__ import annotations

import asyncio
import json

from hook_kit import REPO, TOOLS
from raw_tui.protocol.bus import Bus
from raw_tui.frozen import freeze
from raw_tui.hooks import HookDispatcher, load_hooks
from raw_tui.tools.ports import CallInfo


def dispatcher(use, tmp_path, bus=None):
    hookset = load_hooks(use, config_dir=REPO, tools=TOOLS, where=["agents", "a", "hooks", "use"],
                         file="raw.json")
    return HookDispatcher(hookset, bus or Bus(), cwd=str(tmp_path), agent_id="coder", session_id="s1")


def bash(command: str) -> CallInfo:
    return CallInfo(identity="builtin/bash", name="bash", call_id="c1",
                    arguments=freeze({"commands": [{"command": "cd /tmp"}, {"command": command}]}),
                    effects=None, has_effects=False, turn_id="t1")


async def test_guard_denies_rm_and_allows_printf(tmp_path):
    hooks = dispatcher(["agent/guard"], tmp_path)
    try:
        denied = await hooks.pre_tool_use(bash("rm -rf x"), asyncio.Event())
        assert (denied.allowed, denied.code, denied.reason) == (False, "hook_denied", "Review removal commands first")
        assert [(r.id, r.event, r.outcome) for r in denied.receipts] == [("agent/guard", "PreToolUse", "denied")]
        for command in ("echo a && rm x", "(rm x)", "ls\nrm x"):
            assert not (await hooks.pre_tool_use(bash(command), asyncio.Event())).allowed, command
        for command in ("printf hi", "git rm-cache", "echo rm", "farm x"):
            allowed = await hooks.pre_tool_use(bash(command), asyncio.Event())
            assert (allowed.allowed, allowed.receipts) == (True, []), command
    finally:
        hooks.hookset.close()


async def test_guard_reports_bash_failures_only(tmp_path):
    hooks = dispatcher(["agent/guard"], tmp_path)
    try:
        failed = {"isError": True, "code": "tool_error", "content": [{"type": "text", "text": "exit 1"}]}
        [receipt] = await hooks.post_tool_use(bash("false"), failed, asyncio.Event())
        assert (receipt.event, receipt.outcome, receipt.message) == ("PostToolUseFailure", "continued", "Bash command failed")
        assert await hooks.post_tool_use(bash("true"), {"isError": False, "content": []}, asyncio.Event()) == []
    finally:
        hooks.hookset.close()


async def test_notify_on_stop(tmp_path):
    hooks = dispatcher(["agent/notify"], tmp_path)
    try:
        [receipt] = await hooks.stop("t7", {"status": "completed"})
        assert (receipt.event, receipt.outcome, receipt.message) == ("Stop", "continued", "Turn t7 finished: completed")
    finally:
        hooks.hookset.close()


async def test_log_appends_every_payload_in_lifecycle_order(tmp_path, monkeypatch):
    log = tmp_path / "hooks.jsonl"
    monkeypatch.setenv("RAW_TUI_HOOK_LOG", str(log))
    hooks = dispatcher(["agent/log"], tmp_path)
    try:
        cancel = asyncio.Event()
        await hooks.session_start("create")
        await hooks.user_prompt_submit("list files", "t1", cancel)
        await hooks.pre_tool_use(bash("ls"), cancel)
        await hooks.post_tool_use(bash("ls"), {"isError": False, "content": []}, cancel)
        await hooks.stop("t1", {"status": "completed"}, cancel)
        await hooks.session_end()
    finally:
        hooks.hookset.close()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [p["event"] for p in lines] == [
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    assert lines[1]["input"] == "list files" and lines[2]["tool"]["arguments"]["commands"][1]["command"] == "ls"


async def test_log_without_the_variable_does_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("RAW_TUI_HOOK_LOG", raising=False)
    hooks = dispatcher(["agent/log"], tmp_path)
    try:
        [receipt] = await hooks.session_start()
        assert receipt.outcome == "continued"
    finally:
        hooks.hookset.close()

"""Hooks around one tool call through `raw-tui call` as a user runs it (issue 4): a PreToolUse
deny comes before approval, so the approver is never asked; a failing PostToolUse leaves the
result as it was and leaves a warning receipt; a failing PreToolUse blocks with `hook_error`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import raw_tui, write_config

VETO = """
request = json.load(sys.stdin)
commands = [c["command"] for c in request["tool"]["arguments"]["commands"]]
if any("forbidden" in c for c in commands):
    print(json.dumps({"decision": "deny", "reason": "not that file"}))
else:
    print(json.dumps({"decision": "continue"}))
"""


def setup(tmp_path: Path, hooks: list[str], rules=()) -> tuple[Path, Path]:
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/bash"], "rules": list(rules)},
                       "hooks": {"use": hooks}})
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return cfg, work


def call(cfg: Path, work: Path, command: str, *extra: str):
    args = json.dumps({"commands": [{"command": command}]})
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "call", "bash",
                   "--args", args, *extra)
    assert proc.stdout, proc.stderr
    return proc, json.loads(proc.stdout)


def outcomes(report) -> list[tuple[str, str, str]]:
    return [(r["id"], r["event"], r["outcome"]) for r in report["receipts"]]


# -- 3. PreToolUse deny before approval -----------------------------------------------------

ASK_BASH = [{"match": "builtin/bash", "effect": "ask"}]


def test_pre_tool_use_deny_comes_before_approval(tmp_path):
    cfg, work = setup(tmp_path, ["agent/veto"], ASK_BASH)
    write_hook(cfg, "veto", VETO, events=["PreToolUse"])
    proc, report = call(cfg, work, "touch forbidden.txt", "--approve", "yes")
    assert proc.returncode == 1
    assert (report["outcome"], report["stage"], report["code"], report["message"]) == \
        ("stopped", "hooks", "hook_denied", "not that file")
    assert report["rule"] == "ask"
    assert report["approval_requested"] is False
    assert outcomes(report) == [("agent/veto", "PreToolUse", "denied")]
    # a receipt is {id, event, outcome, duration_ms, message?, code?} (docs/hooks.md)
    assert set(report["receipts"][0]) == {"id", "event", "outcome", "duration_ms"}
    assert report["result"] is None
    assert not (work / "forbidden.txt").exists()


def test_a_continue_never_overrides_ask_and_the_approver_decides(tmp_path):
    cfg, work = setup(tmp_path, ["agent/veto"], ASK_BASH)
    write_hook(cfg, "veto", VETO, events=["PreToolUse"])
    # no approver: the hook said continue, the ask rule still stops the call
    proc, report = call(cfg, work, "touch a.txt")
    assert proc.returncode == 1
    assert (report["stage"], report["code"], report["approval_requested"]) == \
        ("approval", "approval_required", True)
    assert outcomes(report) == [("agent/veto", "PreToolUse", "continued")]
    proc, report = call(cfg, work, "touch a.txt", "--approve", "no")
    assert (report["code"], report["approval_requested"]) == ("approval_denied", True)
    assert not (work / "a.txt").exists()
    proc, report = call(cfg, work, "touch a.txt", "--approve", "yes")
    assert proc.returncode == 0, proc.stderr
    assert (report["outcome"], report["approval_requested"]) == ("ran", True)
    assert outcomes(report) == [("agent/veto", "PreToolUse", "continued")]
    assert (work / "a.txt").exists()


def test_a_denied_tool_fires_no_tool_hook(tmp_path):
    cfg, work = setup(tmp_path, ["agent/veto"], [{"match": "builtin/bash", "effect": "deny"}])
    write_hook(cfg, "veto", "open('ran', 'w').close()", events=["PreToolUse", "PostToolUse"])
    proc, report = call(cfg, work, "true")
    assert (proc.returncode, report["code"]) == (1, "tool_denied")
    assert report["receipts"] == [] and not (work / "ran").exists()


# -- 4. failing hooks -------------------------------------------------------------------------

FAILURES = {
    "exit_1": ("sys.stderr.write('boom')\nsys.exit(1)", {}, "exit"),
    "garbage": ("print('this is not json')", {}, "invalid_output"),
    "decision_on_post": ("print(json.dumps({'decision': 'deny'}))", {}, "invalid_output"),
    "timeout": ("time.sleep(30)", {"timeout_ms": 300}, "timeout"),
    "flood": ("sys.stdout.write('x' * 200000)", {}, "output_too_large"),
}


def baseline(tmp_path: Path, command: str) -> dict:
    cfg, work = setup(tmp_path / "baseline", [])
    proc, report = call(cfg, work, command)
    assert proc.returncode == 0, proc.stderr
    return report["result"]


@pytest.mark.parametrize("case", list(FAILURES))
def test_failing_post_tool_use_leaves_the_result_and_warns(tmp_path, case):
    body, fields, code = FAILURES[case]
    expected = baseline(tmp_path, "printf hello")
    cfg, work = setup(tmp_path, ["agent/post"])
    write_hook(cfg, "post", body, events=["PostToolUse"], **fields)
    proc, report = call(cfg, work, "printf hello")
    assert proc.returncode == 0, proc.stderr
    assert report["outcome"] == "ran" and report["code"] is None
    assert report["result"] == expected
    [receipt] = report["receipts"]
    assert (receipt["id"], receipt["event"], receipt["outcome"], receipt["code"]) == \
        ("agent/post", "PostToolUse", "error", code)


def test_failing_post_tool_use_failure_leaves_the_error_result(tmp_path):
    cfg, work = setup(tmp_path, ["agent/post"])
    write_hook(cfg, "post", "sys.exit(1)", events=["PostToolUseFailure"])
    proc, report = call(cfg, work, "exit 4")
    base_cfg, base_work = setup(tmp_path / "baseline", [])
    _, expected = call(base_cfg, base_work, "exit 4")
    assert proc.returncode == 1
    assert report["result"] == expected["result"] and report["result"]["isError"] is True
    assert (report["code"], report["stage"]) == (expected["code"], "handler")
    assert [(r["event"], r["outcome"], r["code"]) for r in report["receipts"]] == \
        [("PostToolUseFailure", "error", "exit")]


PRE_FAILURES = {
    "exit_1": ("sys.exit(1)", {}, "exit"),
    "garbage": ("print('{nope')", {}, "invalid_output"),
    "unknown_key": ("print(json.dumps({'decision': 'continue', 'allow': True}))", {},
                    "invalid_output"),
    "timeout": ("time.sleep(30)", {"timeout_ms": 300}, "timeout"),
    "missing_command": (None, {"command": "raw-tui-no-such-command-xyz"}, "spawn"),
    "killed": ("os.kill(os.getpid(), signal.SIGKILL)", {}, "exit"),
}


@pytest.mark.parametrize("case", list(PRE_FAILURES))
def test_failing_pre_tool_use_blocks_with_hook_error(tmp_path, case):
    body, fields, code = PRE_FAILURES[case]
    cfg, work = setup(tmp_path, ["agent/pre", "agent/after"], ASK_BASH)
    write_hook(cfg, "pre", body, events=["PreToolUse"], **fields)
    write_hook(cfg, "after", "open('after-ran', 'w').close()", events=["PreToolUse"])
    proc, report = call(cfg, work, "touch made.txt", "--approve", "yes")
    assert proc.returncode == 1
    assert (report["outcome"], report["stage"], report["code"], report["message"]) == \
        ("stopped", "hooks", "hook_error", f"hook agent/pre failed: {code}")
    assert report["approval_requested"] is False
    assert [(r["id"], r["outcome"], r["code"]) for r in report["receipts"]] == \
        [("agent/pre", "error", code)]
    assert not (work / "made.txt").exists()
    assert not (work / "after-ran").exists()  # the first error stops the rest


def test_exit_2_denies_whatever_stdout_says(tmp_path):
    cfg, work = setup(tmp_path, ["agent/pre"])
    write_hook(cfg, "pre", "print(json.dumps({'decision': 'continue'}))\nsys.exit(2)",
               events=["PreToolUse"])
    proc, report = call(cfg, work, "touch made.txt")
    assert (report["code"], report["message"]) == ("hook_denied", "hook agent/pre denied")
    assert not (work / "made.txt").exists()


def test_call_leaves_no_materialised_snapshot(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    cfg, work = setup(tmp_path, ["agent/veto"])
    write_hook(cfg, "veto", VETO, events=["PreToolUse"])
    args = json.dumps({"commands": [{"command": "true"}]})
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "call", "bash",
                   "--args", args, env={"TMPDIR": str(scratch)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["receipts"][0]["outcome"] == "continued"
    assert list(scratch.iterdir()) == []

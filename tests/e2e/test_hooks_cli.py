"""`raw-tui hooks test` and `raw-tui config list` with hooks, as a user runs them (issue 4):
real subprocesses, exit codes of docs/command-line.md."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import REPO, raw_tui, write_config


def setup(tmp_path: Path, hooks: list[str], copy: tuple[str, ...] = ()) -> Path:
    cfg = tmp_path / "cfg"
    for name in copy:
        shutil.copytree(REPO / "hooks" / name, cfg / "hooks" / name)
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "hooks": {"use": hooks}})
    return cfg


def hooks_test(cfg: Path, hook_id: str, event: str, *extra: str, cwd: Path | None = None):
    return raw_tui("--config", str(cfg / "raw.json"), *(["--cwd", str(cwd)] if cwd else []),
                   "hooks", "test", hook_id, "--event", event, *extra)


def printed(proc) -> tuple[str, dict]:
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stdout
    return lines[0], json.loads(lines[1])


# -- 7. hooks test ----------------------------------------------------------------------------

def test_continue_exits_0_and_prints_receipt_and_decision(tmp_path):
    cfg = setup(tmp_path, ["agent/notify"], copy=("notify",))
    proc = hooks_test(cfg, "agent/notify", "Stop")
    assert proc.returncode == 0, proc.stderr
    receipt, decision = printed(proc)
    assert receipt == "Hook agent/notify Stop: continued · Turn t1 finished: completed"
    assert decision["decision"] == "continue" and decision["outcome"] == "continued"
    assert (decision["id"], decision["event"]) == ("agent/notify", "Stop")


def test_deny_exits_1_with_the_reason(tmp_path):
    cfg = setup(tmp_path, ["agent/guard"], copy=("guard",))
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"tool": {
        "identity": "builtin/bash", "name": "bash", "source": "model",
        "arguments": {"commands": [{"command": "rm -rf /tmp/nothing-here"}]}}}))
    proc = hooks_test(cfg, "agent/guard", "PreToolUse", "--payload", str(payload))
    assert proc.returncode == 1, proc.stderr
    receipt, decision = printed(proc)
    assert receipt == "Hook agent/guard PreToolUse: denied"
    assert (decision["decision"], decision["reason"]) == ("deny", "Review removal commands first")
    assert "would not run" not in proc.stderr  # this payload is one the guard selects


def test_payload_file_fields_reach_the_hook_and_cwd_is_used(tmp_path):
    cfg = setup(tmp_path, ["agent/echo"])
    write_hook(cfg, "echo", """
        request = json.load(sys.stdin)
        print(json.dumps({"message": f"{request['input']} from {os.getcwd()} v{request['protocol_version']}"}))
        """, events=["UserPromptSubmit"])
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"input": "custom prompt", "protocol_version": 9}))
    work = tmp_path / "work"
    work.mkdir()
    proc = hooks_test(cfg, "agent/echo", "UserPromptSubmit", "--payload", str(payload), cwd=work)
    assert proc.returncode == 0, proc.stderr
    _, decision = printed(proc)
    assert decision["message"] == f"custom prompt from {work} v2"


def test_a_failing_hook_exits_1_with_its_code_and_stderr(tmp_path):
    cfg = setup(tmp_path, ["agent/bad"])
    write_hook(cfg, "bad", "sys.stderr.write('Traceback: oops\\n')\nsys.exit(1)",
               events=["PreToolUse"])
    proc = hooks_test(cfg, "agent/bad", "PreToolUse")
    assert proc.returncode == 1
    receipt, decision = printed(proc)
    assert receipt == "Hook agent/bad PreToolUse: error · exit"
    assert (decision["outcome"], decision["decision"], decision["code"]) == ("error", None, "exit")
    assert "Traceback: oops" in proc.stderr


def test_a_hook_not_in_hooks_use_can_be_tested(tmp_path):
    cfg = setup(tmp_path, [])
    write_hook(cfg, "draft", "print(json.dumps({'message': 'draft ran'}))", events=["Stop"])
    proc = hooks_test(cfg, "agent/draft", "Stop")
    assert proc.returncode == 0, proc.stderr
    assert printed(proc)[1]["message"] == "draft ran"


@pytest.mark.parametrize("args, expected", [
    (("agent/missing", "Stop"), "agent/missing"),
    (("agent/notify", "PreToolUse"), "does not subscribe to PreToolUse"),
    (("agent/notify", "Lunch"), "unknown event Lunch"),
    (("agent/notify", "Stop", "--payload", "/nonexistent/payload.json"), "payload"),
])
def test_configuration_errors_exit_2(tmp_path, args, expected):
    cfg = setup(tmp_path, ["agent/notify"], copy=("notify",))
    proc = hooks_test(cfg, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert expected in proc.stderr and proc.stdout == ""
    assert "Traceback" not in proc.stderr


def test_a_payload_that_is_not_an_object_exits_2(tmp_path):
    cfg = setup(tmp_path, ["agent/notify"], copy=("notify",))
    payload = tmp_path / "payload.json"
    payload.write_text("[1, 2]")
    proc = hooks_test(cfg, "agent/notify", "Stop", "--payload", str(payload))
    assert proc.returncode == 2 and "JSON object" in proc.stderr


def test_hooks_test_leaves_no_materialised_snapshot(tmp_path, monkeypatch):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    cfg = setup(tmp_path, ["agent/notify"], copy=("notify",))
    proc = raw_tui("--config", str(cfg / "raw.json"), "hooks", "test", "agent/notify",
                   "--event", "Stop", env={"TMPDIR": str(scratch)})
    assert proc.returncode == 0, proc.stderr
    assert list(scratch.iterdir()) == []


# -- 8. config list with a broken hook.json ------------------------------------------------

BROKEN = {
    "regex": ({"protocol_version": 2, "name": "guard", "command": "python3", "events": [
        {"name": "PreToolUse", "when": {"source": "arguments", "any": "commands[*].command",
                                        "regex": "(("}}]}, "events[0].when.regex"),
    "timeout": ({"protocol_version": 2, "name": "guard", "command": "python3",
                 "events": [{"name": "Stop"}], "timeout_ms": 40000}, "timeout_ms"),
    "match_on_stop": ({"protocol_version": 2, "name": "guard", "command": "python3",
                       "events": [{"name": "Stop", "match": "builtin/*"}]}, "events[0].match"),
    "unknown_key": ({"protocol_version": 2, "name": "guard", "command": "python3",
                     "events": [{"name": "Stop"}], "shell": True}, "shell"),
    "command_path": ({"protocol_version": 2, "name": "guard", "command": "/bin/sh",
                      "events": [{"name": "Stop"}]}, "command"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_config_list_names_the_hook_json_and_the_json_path(tmp_path, case):
    doc, path = BROKEN[case]
    cfg = setup(tmp_path, ["agent/guard"])
    write_hook(cfg, "guard", manifest=doc)
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("raw-tui: config error: hooks/guard/hook.json: "), lines[0]
    assert f"hook.json: {path}" in lines[0]


def test_config_list_names_a_hook_json_that_is_not_json(tmp_path):
    cfg = setup(tmp_path, ["agent/guard"])
    write_hook(cfg, "guard")
    (cfg / "hooks" / "guard" / "hook.json").write_text('{"name": "guard", "events": [')
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    assert proc.returncode == 2
    [line] = proc.stderr.splitlines()
    assert line.startswith("raw-tui: config error: hooks/guard/hook.json: ") and "JSON" in line


def test_config_list_shows_good_hooks_and_runs_none(tmp_path):
    cfg = setup(tmp_path, ["agent/guard", "agent/spy"], copy=("guard",))
    write_hook(cfg, "spy", "open('spy-ran', 'w').close()", events=["SessionStart", "Stop"])
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(tmp_path), "config", "list")
    assert proc.returncode == 0, proc.stderr
    assert "  hook agent/guard: PreToolUse, PostToolUseFailure" in proc.stdout.splitlines()
    assert "  hook agent/spy: SessionStart, Stop" in proc.stdout.splitlines()
    assert not (tmp_path / "spy-ran").exists() and not (cfg / "hooks" / "spy" / "spy-ran").exists()

"""`raw-tui hooks test`: hooks_test() with real hook processes."""

from __future__ import annotations

import io
import json

from hook_kit import REPO, TOOLS, load, write_hook
from raw_tui.protocol.errors import ConfigError
from raw_tui.hooks import hooks_test, load_hooks


def repo_loader(*ids):
    return lambda: load_hooks(list(ids), config_dir=REPO, tools=TOOLS, where=["agents", "a", "hooks", "use"],
                              file="raw.json")


def call(source, hook_id, event, payload_file=None, cwd=None):
    out, err = io.StringIO(), io.StringIO()
    code = hooks_test(source, hook_id, event, payload_file, cwd=cwd, out=out, err=err)
    return code, out.getvalue().splitlines(), err.getvalue()


def test_notify_with_the_default_payload(tmp_path):
    code, lines, _ = call(repo_loader("agent/notify"), "agent/notify", "Stop", cwd=str(tmp_path))
    assert code == 0
    assert lines[0] == "Hook agent/notify Stop: continued · Turn t1 finished: completed"
    decision = json.loads(lines[1])
    assert {k: decision[k] for k in ("id", "event", "outcome", "decision", "message")} == {
        "id": "agent/notify", "event": "Stop", "outcome": "continued", "decision": "continue",
        "message": "Turn t1 finished: completed"}


def test_guard_with_a_payload_file(tmp_path):
    payload = tmp_path / "p.json"
    payload.write_text(json.dumps({"tool": {"identity": "builtin/bash", "name": "bash", "source": "model",
                                            "arguments": {"commands": [{"command": "rm -rf x"}]}}}))
    code, lines, err = call(repo_loader("agent/guard"), "agent/guard", "PreToolUse", payload, cwd=str(tmp_path))
    assert code == 1
    assert lines[0] == "Hook agent/guard PreToolUse: denied"
    assert json.loads(lines[1])["reason"] == "Review removal commands first"
    assert err == ""


def test_a_payload_the_subscription_would_not_select_gets_a_note(tmp_path):
    code, _, err = call(repo_loader("agent/guard"), "agent/guard", "PreToolUse", cwd=str(tmp_path))
    assert code == 1  # the guard script itself denies whatever it is given
    assert "in a session the hook would not run" in err


def test_errors_exit_1_and_show_stderr(tmp_path):
    write_hook(tmp_path, "bad", "sys.stderr.write('traceback here')\nsys.exit(1)", events=["Stop"])
    hookset = load(tmp_path, ["agent/bad"])
    try:
        code, lines, err = call(hookset, "agent/bad", "Stop", cwd=str(tmp_path))
    finally:
        hookset.close()
    assert code == 1
    assert lines[0] == "Hook agent/bad Stop: error · exit"
    assert json.loads(lines[1])["code"] == "exit" and "traceback here" in err


def test_config_errors_exit_2(tmp_path):
    def broken():
        raise ConfigError("bad", file="raw.json", path="agents")

    assert call(broken, "agent/x", "Stop")[0] == 2
    assert call(repo_loader("agent/notify"), "agent/guard", "Stop")[0] == 2  # not selected
    assert call(repo_loader("agent/notify"), "agent/notify", "PreToolUse")[0] == 2  # not subscribed
    assert call(repo_loader("agent/notify"), "agent/notify", "Lunch")[0] == 2
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    code, _, err = call(repo_loader("agent/notify"), "agent/notify", "Stop", bad)
    assert code == 2 and "must be a JSON object" in err
    assert call(repo_loader("agent/notify"), "agent/notify", "Stop", tmp_path / "missing.json")[0] == 2

"""Credentials never leave (docs/security.md): a provider that echoes the key back, a tool that
prints it, a model that streams it in pieces — `raw-tui run`'s stdout and stderr, the saved
history, hook payloads, `call`'s report and the next model request hold no key."""

from __future__ import annotations

import json
import stat

import pytest

from tests.e2e.provider_kit import WIRES, Wire, server, wire
from tests.config_kit import raw_tui, write_config
from tests.servers import openai_wire
from tests.servers.http_server import ProtocolServer, Recorded, Reply

KEY = "sk-test-0123456789abcdefSECRET"
ENV_KEY = "sk-env-9876543210fedcbaSECRET"

__all__ = ["server", "wire"]  # the fixtures


def echo_key(wire: Wire):
    """A 401 quoting the credential the client sent, as some providers and proxies do."""
    def reply(request: Recorded) -> Reply:
        sent = request.headers.get("authorization") or request.headers.get("x-api-key", "")
        return wire.error(401, f"invalid key: {sent}")
    return reply


def setup(tmp_path, wire: Wire, server: ProtocolServer, *, key_in: str = "config"):
    cfg = tmp_path / "cfg"
    url = server.url + ("/v1" if wire.method == "openai-chat-completions" else "")
    model = {"method": wire.method, "model_id": "m", "base_url": url}
    if key_in == "config":
        model["api_key"] = KEY
    else:
        model["api_key_env"] = "TEST_RAW_KEY"
    hook = cfg / "hooks" / "spy"
    hook.mkdir(parents=True)
    (hook / "hook.json").write_text(json.dumps({
        "protocol_version": 2, "name": "spy", "command": "./spy.sh",
        "events": [{"name": "Stop"}, {"name": "PostToolUse"}, {"name": "PreToolUse"}]}))
    script = hook / "spy.sh"
    script.write_text("#!/bin/sh\ncat >> hook-payloads.jsonl\necho >> hook-payloads.jsonl\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "hooks": {"use": ["agent/spy"]}},
                 models={"m": model})
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return cfg, work


def run(cfg, work, output="jsonl", env=None):
    return raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", "go",
                   "--output", output, env=env)


def everything_written(proc, work) -> str:
    """stdout, stderr, the saved session (JSON and text) and what the hooks were sent."""
    session_id = raw_tui("sessions", "list").stdout.split()[0]
    shown = raw_tui("sessions", "show", session_id).stdout
    shown_text = raw_tui("sessions", "show", session_id, "--output", "text").stdout
    hooks = (work / "hook-payloads.jsonl").read_text()
    assert shown and hooks
    return "\n".join([proc.stdout, proc.stderr, shown, shown_text, hooks])


@pytest.mark.parametrize("output", ["jsonl", "text"])
def test_a_provider_echoing_the_key_leaks_it_nowhere(tmp_path, wire, server, output):
    cfg, work = setup(tmp_path, wire, server)
    server.default = echo_key(wire)
    proc = run(cfg, work, output)
    assert proc.returncode == 1
    assert KEY in json.dumps(server.last.headers)  # the server did get (and echo) it
    assert "invalid key:" in proc.stderr and "[redacted]" in proc.stderr, proc.stderr
    written = everything_written(proc, work)
    assert KEY not in written and KEY[3:-3] not in written
    if output == "jsonl":
        end = json.loads(proc.stdout.splitlines()[-1])
        assert end["type"] == "run_end" and "[redacted]" in end["message"]


def test_a_key_from_the_environment_is_redacted_too(tmp_path, wire, server):
    cfg, work = setup(tmp_path, wire, server, key_in="env")
    server.default = echo_key(wire)
    proc = run(cfg, work, env={"TEST_RAW_KEY": ENV_KEY})
    assert proc.returncode == 1 and "[redacted]" in proc.stderr
    assert ENV_KEY not in everything_written(proc, work)


def test_a_tool_printing_the_key_and_a_model_streaming_it(tmp_path, server):
    # bash prints the key (from the environment); the model then streams it back in
    # three-character deltas: no event, hook payload or model request carries it
    wire = WIRES["openai-chat-completions"]
    cfg, work = setup(tmp_path, wire, server, key_in="env")
    bash = json.dumps({"commands": [{"command": "echo key=$TEST_RAW_KEY"}]})
    server.enqueue(wire.calls([("call_1", "bash", bash)]),
                   openai_wire.text_reply(f"Your key is {ENV_KEY}, keep it safe."))
    proc = run(cfg, work, env={"TEST_RAW_KEY": ENV_KEY})
    assert proc.returncode == 0, proc.stderr
    written = everything_written(proc, work)
    assert ENV_KEY not in written
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    deltas = "".join(e["text"] for e in events if e["type"] == "assistant_delta")
    assert deltas == "Your key is [redacted], keep it safe."
    result = next(e for e in events if e["type"] == "tool_result")
    assert "key=\\nexit 0" in json.dumps(result)  # api_key_env never reaches bash
    assert ENV_KEY not in json.dumps(server.requests[1].body)  # the model never reads it


def test_call_report_holds_no_key(tmp_path, server):
    cfg, work = setup(tmp_path, WIRES["openai-chat-completions"], server)
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "call", "bash",
                   "--args", json.dumps({"commands": [{"command": f"echo {KEY}"}]}))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert "\n[redacted]\n" in report["result"]["content"][0]["text"]
    assert KEY not in proc.stdout + proc.stderr
    assert KEY not in (work / "hook-payloads.jsonl").read_text()


def test_config_list_shows_no_key_outside_api_key(tmp_path):
    # the key also written where config list shows values: a base_url query, a rule's regex
    # (a user denying commands that use the key), text and --json alike
    cfg = tmp_path / "cfg"
    model = {"method": "openai-chat-completions", "model_id": "m", "api_key": KEY,
             "base_url": f"https://models.example/v1?key={KEY}"}
    rule = {"match": "builtin/bash", "effect": "ask", "when": {
        "source": "arguments", "any": "commands[*].command", "regex": KEY}}
    write_config(cfg, {"tools": {"use": ["builtin/bash"], "rules": [rule]}},
                 models={"m": model})
    for extra in ([], ["--json"]):
        proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list", *extra)
        assert proc.returncode == 0, proc.stderr
        assert "key=[redacted]" in proc.stdout, proc.stdout
        assert KEY not in proc.stdout + proc.stderr


def test_hooks_test_shows_no_key(tmp_path):
    # a hook that prints the key (it reads it from the environment) on stderr and in its
    # reason, given a payload file holding it: `hooks test` redacts as the session does
    cfg = tmp_path / "cfg"
    hook = cfg / "hooks" / "leak"
    hook.mkdir(parents=True)
    (hook / "hook.json").write_text(json.dumps({
        "protocol_version": 2, "name": "leak", "command": "./leak.sh",
        "events": [{"name": "PreToolUse"}]}))
    script = hook / "leak.sh"
    read_payload = tmp_path / "read.json"
    # api_key_env never reaches a hook: it prints the key it reads from a file instead
    script.write_text(f"#!/bin/sh\ncat >{read_payload}\n"
                      f"K=$(cat {tmp_path / 'key.txt'})\n"
                      "echo \"key $K env ${TEST_RAW_KEY:-absent}\" >&2\n"
                      "printf '{\"decision\": \"deny\", \"reason\": \"saw %s\"}' \"$K\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "hooks": {"use": ["agent/leak"]}},
                 models={"m": {"method": "openai-chat-completions", "model_id": "m",
                               "api_key_env": "TEST_RAW_KEY"}})
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"note": f"key {ENV_KEY}"}))
    (tmp_path / "key.txt").write_text(ENV_KEY)
    proc = raw_tui("--config", str(cfg / "raw.json"), "hooks", "test", "agent/leak",
                   "--event", "PreToolUse", "--payload", str(payload),
                   env={"TEST_RAW_KEY": ENV_KEY})
    assert proc.returncode == 1, proc.stderr
    assert "key [redacted] env absent" in proc.stderr and "saw [redacted]" in proc.stdout, proc
    assert ENV_KEY not in proc.stdout + proc.stderr
    assert "key [redacted]" in read_payload.read_text()


@pytest.mark.parametrize("where", ["regex", "alias"])
def test_a_config_error_quoting_the_key_shows_no_key(tmp_path, where):
    cfg = tmp_path / "cfg"
    model = {"method": "openai-chat-completions", "model_id": "m", "api_key": KEY}
    rule = {"match": "builtin/bash", "effect": "ask", "when": {
        "source": "arguments", "any": "commands[*].command", "regex": f"({KEY}"}}
    agent = {"tools": {"use": ["builtin/bash"], "rules": [rule] if where == "regex" else []}}
    if where == "alias":
        agent["model"] = KEY  # the key pasted where the alias goes
    write_config(cfg, agent, models={"m": model})
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    assert proc.returncode == 2 and "[redacted]" in proc.stderr, proc.stderr
    assert KEY not in proc.stdout + proc.stderr

"""`raw-tui acp` given a valid JSON line that is no JSON-RPC message answers it with a
JSON-RPC error -32600 and goes on, the open session kept. A real subprocess, raw lines on
its stdin."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import pytest

from raw_tui.acp.command import log_path
from tests.e2e.test_acp_stdio import agent_env
from tests.config_kit import write_config

NOT_MESSAGES = [
    ("[1,2,3]", None, "a message is a JSON object, not an array"),
    ('"str"', None, "a message is a JSON object, not a string"),
    ("42", None, "a message is a JSON object, not a number"),
    ("null", None, "a message is a JSON object, not null"),
    ("true", None, "a message is a JSON object, not a boolean"),
    ("{}", None, "neither a request, a notification nor a response"),
    ('{"jsonrpc": "2.0", "id": [1], "method": "session/list"}', None,
     "id: must be a string, a number or null"),
    ('{"jsonrpc": "2.0", "id": {"a": 1}, "result": {}}', None,
     "id: must be a string, a number or null"),
    ('{"jsonrpc": "2.0", "id": 7, "method": 5}', 7, "method: must be a string"),
    ('{"jsonrpc": "2.0", "id": 0, "error": "no"}', None, "error: must be an object"),
    ('{"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {"cwd": "/w/\\udfff"}}',
     8, "params.cwd: not valid Unicode (lone surrogate)"),  # scripts/fuzz found it a traceback
]
NOT_JSON = [("{not json", "not JSON"), ("[" * 100_000, "nested too deeply"),
            ('{"a": "\xff"}', "not UTF-8"), ('{"a": "\xed\xbf\xbf"}', "not UTF-8")]


class Agent:
    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.buffer = b""

    def send(self, line: str) -> None:
        self.send_bytes(line.encode())

    def send_bytes(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def request(self, ident: int, method: str, params: dict) -> None:
        self.send(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                              "params": params}))

    def read(self, timeout: float = 30) -> dict:
        """The next message from the agent that is a response (notifications skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(line)
                if "id" in message and "method" not in message:
                    return message
            left = deadline - time.monotonic()
            assert left > 0, f"no answer; exit {self.proc.poll()}"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the agent closed its output (exit {self.proc.wait(10)})"
                self.buffer += chunk


@pytest.fixture
def agent(tmp_path, isolated_home):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/read_file"]}})
    (cfg / "script.jsonl").write_text(json.dumps({"text": "Still here."}) + "\n")
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "--config",
                             str(cfg / "raw.json"), "acp"], cwd=work, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **agent_env(isolated_home)})
    try:
        yield Agent(proc), work
    finally:
        if proc.poll() is None:
            proc.stdin.close()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_lines_that_are_no_message_are_answered_and_the_session_goes_on(agent):
    client, work = agent
    client.request(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert client.read()["result"]["agentInfo"]["name"] == "raw-tui"
    client.request(2, "session/new", {"cwd": str(work), "mcpServers": []})
    session_id = client.read()["result"]["sessionId"]
    for line, ident, why in NOT_MESSAGES:
        client.send(line)
        answer = client.read()
        assert answer == {"jsonrpc": "2.0", "id": ident, "error": {
            "code": -32600, "message": f"Invalid Request: {why}"}}, line
    for line, why in NOT_JSON:
        client.send_bytes(line.encode("latin-1"))
        assert client.read() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32700, "message": f"Parse error: {why}"}}, line
    client.send('{"jsonrpc": "2.0", "method": "no/such/notification", "params": {}}')
    client.send('{"jsonrpc": "2.0", "method": "session/cancel", "params": {"cwd": 5}}')
    client.request(3, "session/prompt", {"sessionId": session_id,
                                         "prompt": [{"type": "text", "text": "hello"}]})
    reply = client.read()
    assert reply["id"] == 3 and reply["result"]["stopReason"] == "end_turn"
    client.proc.stdin.close()
    assert client.proc.wait(15) == 0
    logged = log_path().read_text()
    assert "Traceback" not in logged  # an unknown notification too: one line, no answer
    assert "notification no/such/notification refused: Method not found" in logged
    assert "notification session/cancel refused: invalid params" in logged
    assert logged.count("refused a line that is not a JSON-RPC message") == len(NOT_MESSAGES) + len(NOT_JSON)

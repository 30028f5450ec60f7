"""Issue 14: `raw-tui acp` as a real subprocess, driven by the SDK's `spawn_agent_process` with
an explicit environment (the SDK trims the child's env to PATH, HOME, …)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
import sys
from pathlib import Path

import acp

from tests.acp_agent.acp_kit import RecordingClient
from tests.config_kit import write_config, write_tool

# a credential of the config (an MCP server's env value): acp.log must not keep it
SECRET = "acp-log-0123456789-SECRET"
NOISY_TOOL = '''
import logging, os, sys
SECRET = "acp-log-0123456789-" + "SECRET"
def handler(args, ctx):
    print("stray print on stdout " + SECRET)
    os.write(1, b"stray bytes on fd 1\\n")
    print("stray print on stderr " + SECRET, file=sys.stderr)
    logging.getLogger("noisy").warning("logged %s", SECRET)
    return "noisy done"
'''


def agent_env(home: Path) -> dict[str, str]:
    """What the child needs: this interpreter's paths and the test's XDG homes."""
    env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache")}
    if "VIRTUAL_ENV" in os.environ:
        env["VIRTUAL_ENV"] = os.environ["VIRTUAL_ENV"]
    return env


def scripted_config(tmp_path: Path, lines: list[dict], **agent) -> Path:
    cfg = tmp_path / "cfg"
    write_tool(cfg, "noisy", NOISY_TOOL)
    server = {"transport": "stdio", "command": "unused-server", "env": {"TOKEN": SECRET}}
    path = write_config(cfg, {"tools": {"use": ["builtin/read_file", "builtin/write_file",
                                                "agent/noisy"], **agent}},
                        extra={"mcp": {"servers": {"unused": server}}})
    (cfg / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


async def test_a_subprocess_session_with_an_ask_keeps_stdout_for_the_protocol(
        tmp_path, isolated_home):
    work = tmp_path / "work"
    work.mkdir()
    config = scripted_config(tmp_path, [
        {"text": "Writing.", "tool_calls": [
            {"name": "noisy", "arguments": {}, "id": "c_noisy"},
            {"name": "write_file", "id": "c_write", "arguments": {"operations": [
                {"mode": "overwrite", "path": "out.txt", "content": "from acp\n"}]}}]},
        {"text": "Done."}], rules=[{"match": "builtin/write_file", "effect": "ask"}])
    client = RecordingClient(permission=lambda call: "allow")
    stderr_file = tmp_path / "stderr.txt"
    with open(stderr_file, "wb") as stderr:
        async with acp.spawn_agent_process(
                client, sys.executable, "-m", "raw_tui.cli", "--config", str(config), "acp",
                env=agent_env(isolated_home), cwd=str(work),
                transport_kwargs={"stderr": stderr}, use_unstable_protocol=True) as (conn, proc):
            init = await asyncio.wait_for(conn.initialize(protocol_version=1), 30)
            assert init.agent_info.name == "raw-tui"
            session = await conn.new_session(cwd=str(work), mcp_servers=[])
            reply = await asyncio.wait_for(conn.prompt(
                session_id=session.session_id, prompt=[acp.text_block("write it")]), 30)
            listed = await conn.list_sessions(cwd=str(work))
        await asyncio.wait_for(proc.wait(), 10)
    assert reply.stop_reason == "end_turn"
    assert (work / "out.txt").read_text() == "from acp\n"
    assert [p["tool_call"].tool_call_id for p in client.permissions] == ["c_write"]
    assert client.text() == "Writing.Done."
    assert [s.session_id for s in listed.sessions] == [session.session_id]
    assert proc.returncode == 0
    # nothing but protocol reached the client; stray output went to the log, not stderr
    assert stderr_file.read_bytes() == b""
    log = (isolated_home / "state" / "raw-tui" / "acp.log").read_text()
    assert "stray print on stdout" in log and "stray bytes on fd 1" in log
    assert "stray print on stderr" in log
    assert "logged [redacted]" in log and "stray print on stderr [redacted]" in log
    assert SECRET not in log  # credentials never leave, not even to the log
    assert "initialize (early)" in log  # answered before the SDK had loaded


def test_acp_config_error_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "raw.json"
    bad.write_text("{")
    proc = subprocess.run([sys.executable, "-m", "raw_tui.cli", "--config", str(bad), "acp"],
                          capture_output=True, text=True, input="", timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "config error" in proc.stderr


def test_acp_exits_0_when_the_client_closes(tmp_path):
    config = scripted_config(tmp_path, [])
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": 1}}
    proc = subprocess.run([sys.executable, "-m", "raw_tui.cli", "--config", str(config), "acp"],
                          capture_output=True, text=True, input=json.dumps(request) + "\n",
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stdout.splitlines()
    reply = json.loads(line)
    assert reply["id"] == 1 and reply["result"]["protocolVersion"] == 1
    assert proc.stderr == ""


def _exchange(config: Path, lines: list[dict], tmp_path: Path) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "raw_tui.cli", "--config", str(config), "acp"],
                          capture_output=True, text=True, timeout=60,
                          input="".join(json.dumps(line) + "\n" for line in lines))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_the_early_initialize_answers_as_the_sdk_does(tmp_path):
    """`initialize` is answered before the SDK loads; what is not a well-formed initialize
    is left to the SDK: the replies are the same either way."""
    config = scripted_config(tmp_path, [])
    work = tmp_path / "w"
    work.mkdir()
    new = {"jsonrpc": "2.0", "id": 2, "method": "session/new",
           "params": {"cwd": str(work), "mcpServers": []}}
    early = _exchange(config, [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"protocolVersion": 1, "_meta": {"raw": {
                                    "interactions": True}}}}, new], tmp_path)
    # the same initialize, second: the SDK answers it
    late = _exchange(config, [{"jsonrpc": "2.0", "id": 0, "method": "session/list",
                               "params": {}},
                              {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"protocolVersion": 1}}], tmp_path)
    assert late[0]["error"]["code"] == -32600  # initialize first
    assert early[0]["result"] == late[1]["result"]
    assert "sessionId" in early[1]["result"]
    bad = _exchange(config, [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                              "params": {"protocolVersion": 1,
                                         "_meta": {"raw": {"panelsV2": 1}}}}], tmp_path)
    assert bad[0]["error"]["code"] == -32602
    assert "_meta.raw.panelsV2 must be boolean" in json.dumps(bad[0]["error"])


def test_the_client_closing_mid_turn_cancels_it_and_leaves_no_process(tmp_path):
    from tests.config_kit import alive

    pid_file = tmp_path / "bash.pid"
    cfg = tmp_path / "cfg"
    # mode off: the pid file is written outside the workspace, the pid is the host's
    write_config(cfg, {"tools": {"use": ["builtin/bash"]}, "sandbox": {"mode": "off"}})
    (cfg / "script.jsonl").write_text(json.dumps({"tool_calls": [{"name": "bash", "arguments": {
        "commands": [{"command": f"echo $$ > {pid_file}; sleep 60"}]}}]}) + "\n")
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "--config",
                             str(cfg / "raw.json"), "acp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for message in ({"id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
                    {"id": 1, "method": "session/new",
                     "params": {"cwd": str(work), "mcpServers": []}}):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
    sid = reply["result"]["sessionId"]
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
        "sessionId": sid, "prompt": [{"type": "text", "text": "wait"}]}}) + "\n").encode())
    proc.stdin.flush()
    for _ in range(1000):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.01)
    pid = int(pid_file.read_text())
    assert alive(pid)
    proc.stdin.close()  # the editor went away
    out = proc.stdout.read()
    err = proc.stderr.read()
    assert proc.wait(timeout=20) == 0, err
    assert err == b""
    replies = [json.loads(line) for line in out.splitlines()]
    # updates can no longer be delivered: the turn is aborted, its prompt answered -32007
    [answer] = [r for r in replies if r.get("id") == 3]
    assert answer["error"]["code"] == -32007
    for _ in range(200):
        if not alive(pid):
            break
        time.sleep(0.01)
    assert not alive(pid), "bash outlived the client"


async def test_configure_compact_and_delete_are_served_by_the_subprocess(tmp_path, isolated_home):
    """The three methods the SDK does not route by itself (`session/delete`) or that are
    Raw's extensions reach the agent in the real process (not -32601)."""
    from acp import RequestError

    from tests.acp_agent.acp_kit import delete_session

    work = tmp_path / "work"
    work.mkdir()
    config = scripted_config(tmp_path, [{"text": "Hi."}])
    async with acp.spawn_agent_process(
            RecordingClient(), sys.executable, "-m", "raw_tui.cli", "--config", str(config),
            "acp", env=agent_env(isolated_home), cwd=str(work),
            transport_kwargs={"stderr": None}, use_unstable_protocol=True) as (conn, proc):
        init = await asyncio.wait_for(conn.initialize(
            protocol_version=1, raw={"sessionConfigure": True, "sessionCompact": True}), 30)
        assert init.agent_capabilities.session_capabilities.delete is not None
        sid = (await conn.new_session(cwd=str(work), mcp_servers=[])).session_id
        configured = await conn.ext_method("raw/session/configure",
                                           {"sessionId": sid, "tools": ["read_file"]})
        compacted = await conn.ext_method("raw/session/compact", {"sessionId": sid})
        errors = []
        for target in (sid, "s_nope"):
            try:
                await delete_session(conn, target)
            except RequestError as err:
                errors.append(err.code)
    await asyncio.wait_for(proc.wait(), 10)
    assert configured == {"contextRevision": 2, "tools": ["read_file"]}
    assert compacted["status"] == "noop"
    assert errors == [-32002, -32001]  # the open session is busy; an unknown one unknown

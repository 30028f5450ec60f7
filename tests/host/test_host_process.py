"""The host as a real detached process: started like `raw-tui` starts it, attached over its
socket, detached and reattached, listed by `sessions list`, ended by Quit, the idle timeout
and SIGTERM (no process left, history whole, `--continue` works), other users refused."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from raw_tui.protocol import bus as ev
from raw_tui.protocol import commands as cmd
from raw_tui.protocol.errors import ConfigError
from raw_tui.host import protocol as wire
from raw_tui.host.client import HostClient
from raw_tui.host.paths import live_sessions, probe
from tests.config_kit import raw_tui, write_config, write_tool
from tests.host.host_kit import alive, bash_call, kinds, setup, start, until, wait_gone, write_call


def cli(args, *extra):
    return raw_tui("--config", args.config, "--cwd", args.cwd, *extra)


async def test_detached_host_waits_for_approval_and_sessions_list_marks_it(tmp_path):
    args = setup(tmp_path, [write_call("note.txt"), {"text": "written"}])
    host = start(args)
    try:
        info = Path(f"/proc/{host.pid}/stat").read_text().rsplit(")", 1)[1].split()
        assert int(info[3]) == host.pid  # its own session (setsid) ...
        assert int(info[4]) == 0  # ... and no controlling terminal
        client = await HostClient.connect(host.socket)
        await client.open()
        assert (await client.handle(cmd.Prompt(text="write a note"))).ok
        await until(lambda: probe(host.socket).state == "waiting for approval")
        await client.close()  # the terminal went away
        listing = cli(args, "sessions", "list")
        assert listing.returncode == 0, listing.stderr
        row, = listing.stdout.splitlines()
        assert row.startswith(f"{host.session_id}  live (waiting for approval)  ")
        again = await HostClient.connect(host.socket)
        (request,) = again.snapshot.approvals
        assert request.call_id == "c1" and again.snapshot.turn.state == "running"
        seen: list[ev.Event] = []
        again.bus.subscribe(seen.append)
        await again.open()
        assert (await again.handle(cmd.ApprovalAnswer(call_id="c1", allow=True))).ok
        await until(lambda: any(isinstance(e, ev.RunEnd) for e in seen))
        assert (Path(args.cwd) / "note.txt").read_text() == "hi\n"
        await until(lambda: probe(host.socket).state == "idle")
        assert (await again.handle(cmd.Quit())).ok
        await until(lambda: again.ended.is_set())
        assert wait_gone(host.pid)
    finally:
        os.kill(host.pid, signal.SIGKILL) if alive(host.pid) else None
    assert not host.socket.exists()
    stored = [json.loads(x) for x in cli(args, "sessions", "show", host.session_id)
              .stdout.splitlines()]
    types = [e["type"] for e in stored]
    assert types.count("run_end") == 1 and types.count("session_start") == 1
    assert [e for e in stored if e["type"] == "turn_state"][-1]["state"] == "closing"
    assert "live" not in cli(args, "sessions", "list").stdout


async def test_a_long_command_runs_on_while_detached(tmp_path):
    """A turn with a 10 s bash command, detached at 2 s, reattached at 12 s: the command
    finished and its output is in the snapshot."""
    args = setup(tmp_path, [bash_call("sleep 10; echo finished-while-away",
                                      timeout_ms=30000), {"text": "done"}])
    host = start(args)
    try:
        client = await HostClient.connect(host.socket)
        await client.open()
        await client.handle(cmd.Prompt(text="run it"))
        await asyncio.sleep(2)
        await client.close()
        await asyncio.sleep(10)
        again = await HostClient.connect(host.socket)
        results = [e for e in again.snapshot.events if isinstance(e, ev.ToolResultEvent)]
        assert results and "finished-while-away" in json.dumps(results[-1].content)
        assert [e.text for e in again.snapshot.events if isinstance(e, ev.AssistantText)][-1] \
            == "done"
        assert again.snapshot.turn.state == "idle"
        await again.handle(cmd.Quit())
    finally:
        if not wait_gone(host.pid, 15):
            os.kill(host.pid, signal.SIGKILL)


def test_sigterm_mid_turn_ends_the_tree_keeps_history_and_continue_works(tmp_path):
    pidfile = tmp_path / "child.pid"
    # mode off: the pid file is written outside the workspace, the pid is the host's
    args = setup(tmp_path, [bash_call(f"echo $$ > {pidfile}; sleep 60", timeout_ms=30000),
                            {"text": "after resume"}], sandbox={"mode": "off"})
    host = start(args)

    async def begin():
        client = await HostClient.connect(host.socket)
        await client.open()
        await client.handle(cmd.Prompt(text="sleep"))
        await until(lambda: pidfile.exists() and pidfile.read_text().strip())
        await client.close()

    asyncio.run(begin())
    child = int(pidfile.read_text())
    assert alive(child)
    os.kill(host.pid, signal.SIGTERM)
    assert wait_gone(host.pid, 20), "the host did not end on SIGTERM"
    assert wait_gone(child, 5), "the command outlived its host"
    assert not host.socket.exists()
    stored = [json.loads(x) for x in cli(args, "sessions", "show", host.session_id)
              .stdout.splitlines()]
    types = [e["type"] for e in stored]
    assert types.count("run_end") == 1
    assert next(e for e in stored if e["type"] == "run_end")["status"] == "cancelled"
    assert types.index("tool_result") < types.index("run_end")
    proc = cli(args, "run", "go on", "--continue", "--output", "jsonl")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(x) for x in proc.stdout.splitlines()]
    assert events[0]["session_id"] == host.session_id


def test_a_killed_host_leaves_a_stale_socket_that_is_cleaned(tmp_path):
    args = setup(tmp_path, [])
    host = start(args)
    os.kill(host.pid, signal.SIGKILL)
    assert wait_gone(host.pid)
    assert host.socket.exists()  # nobody could remove it
    assert host.session_id not in live_sessions()
    assert not host.socket.exists()  # cleaned by the look
    args.resume = host.session_id
    again = start(args)
    try:
        assert again.session_id == host.session_id and again.socket.exists()
    finally:
        os.kill(again.pid, signal.SIGTERM)
        assert wait_gone(again.pid)


def test_second_host_for_a_live_session_is_refused(tmp_path):
    from raw_tui.host.launch import HostStartError

    args = setup(tmp_path, [])
    host = start(args)
    try:
        args.resume = host.session_id
        with pytest.raises(HostStartError, match="is live"):
            start(args)
        assert alive(host.pid)
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)


def test_config_error_reaches_the_starter_as_one_line(tmp_path):
    args = setup(tmp_path, [], ui={"detached_idle_timeout_s": -1})
    with pytest.raises(ConfigError) as err:
        start(args)
    assert "ui.detached_idle_timeout_s" in err.value.line()
    assert "\n" not in err.value.line()


def test_idle_timeout_ends_the_host_cleanly(tmp_path):
    args = setup(tmp_path, [], ui={"detached_idle_timeout_s": 1})
    host = start(args)
    assert wait_gone(host.pid, 20)
    assert not host.socket.exists()
    # nothing happened in it: its close (and only a clean close) dropped it from the history
    shown = cli(args, "sessions", "show", host.session_id)
    assert shown.returncode == 1 and "unknown session" in shown.stderr


NOBODY_CONNECT = """
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as err:
    print("refused:", type(err).__name__); sys.exit(0)
try:
    s.sendall(b'{"frame":"probe","version":1}\\n')
except (BrokenPipeError, ConnectionResetError):
    pass  # a refused peer may be hung up on before it speaks; its goodbye is still there
print("got:", s.recv(4096).decode().strip())
"""


def as_nobody(path: Path) -> str:
    proc = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                           "/usr/bin/python3", "-c", NOBODY_CONNECT, str(path)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as nobody")
def test_another_uid_is_refused(tmp_path):
    args = setup(tmp_path, [])
    host = start(args)
    try:
        # the directory (0700) keeps others out ...
        assert as_nobody(host.socket) == "refused: PermissionError"
        # ... and were it opened up, the peer's uid still is
        os.chmod(host.socket.parent.parent, 0o711)
        os.chmod(host.socket.parent, 0o711)
        os.chmod(host.socket, 0o666)
        out = as_nobody(host.socket)
        assert out.startswith("got: ")
        bye = wire.decode_host(out[len("got: "):].encode())
        assert isinstance(bye, wire.Bye) and bye.reason == "refused"
        assert probe(host.socket).session_id == host.session_id  # the host goes on
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)


def host_fds_and_rss(pid: int) -> tuple[int, int]:
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1])
    return fds, rss


def attach_detach(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(os.fspath(path))
        sock.sendall(wire.encode(wire.Attach(version=wire.PROTOCOL_VERSION)))
        data = b""
        while not data.endswith(b"\n"):
            data += sock.recv(1 << 20)
        assert isinstance(wire.decode_host(data), wire.Snapshot)
        sock.sendall(wire.encode(wire.Detach()))
        sock.recv(10)


def test_a_thousand_attach_detach_cycles_leave_fds_and_memory_flat(tmp_path):
    args = setup(tmp_path, [{"text": "hello " * 50}] * 20)
    host = start(args)
    try:
        async def some_history():
            client = await HostClient.connect(host.socket)
            await client.open()
            for i in range(20):
                await client.handle(cmd.Prompt(text=f"prompt {i}"))
                await until(lambda: probe(host.socket).state == "idle")
            await client.close()

        asyncio.run(some_history())
        for _ in range(100):  # warm up: caches, allocator arenas
            attach_detach(host.socket)
        time.sleep(0.3)
        fds0, rss0 = host_fds_and_rss(host.pid)
        for _ in range(1000):
            attach_detach(host.socket)
        time.sleep(0.3)
        fds1, rss1 = host_fds_and_rss(host.pid)
        print(f"host fds {fds0} -> {fds1}, rss {rss0} -> {rss1} KiB")
        assert fds1 == fds0
        assert rss1 - rss0 < 2048, (rss0, rss1)
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)


async def test_the_host_log_holds_no_secret_a_tool_prints(tmp_path, monkeypatch):
    """A tool that prints the API key to stderr writes into the host's log file: the log
    shows `[redacted]`, never the key (docs/security.md: redaction everywhere text is written)."""
    secret = "sk-host-log-0123456789-SECRET"
    monkeypatch.setenv("LEAKY_VALUE", secret)
    args = setup(tmp_path, [{"tool_calls": [{"id": "l1", "name": "leaky", "arguments": {}}]},
                            {"text": "done"}])
    cfg = Path(args.config).parent
    write_tool(cfg, "leaky", "import os, sys\ndef handler(args, ctx):\n"
               "    print('debug: key', os.environ['LEAKY_VALUE'], file=sys.stderr, flush=True)\n"
               "    return 'ok'\n", schema={"type": "object"})
    write_config(cfg, {"tools": {"use": ["agent/leaky"]}}, models={
        "m": {"method": "scripted", "script": "script.jsonl"},
        "hosted": {"method": "openai-chat-completions", "model_id": "x",
                   "base_url": "http://127.0.0.1:9/v1", "api_key": secret}})
    host = start(args)
    try:
        client = await HostClient.connect(host.socket)
        await client.open()
        await client.handle(cmd.Prompt(text="go"))
        await until(lambda: "debug: key" in host.log.read_text())
        await client.handle(cmd.Quit())
        assert wait_gone(host.pid, 15)
    finally:
        if alive(host.pid):
            os.kill(host.pid, signal.SIGKILL)
    text = host.log.read_text()
    assert "debug: key [redacted]" in text, text
    assert secret not in text
    assert "host exiting" in text  # lines after the session closed still reach the file

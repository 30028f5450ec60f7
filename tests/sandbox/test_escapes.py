"""What a sandboxed command cannot do, tried from inside with real bubblewrap: rewrite the
gate's files, leave a background writer behind, reach a host server or socket without the
network, read a secret from its environment, or write `.env` past an `observed` deny rule."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.config_kit import write_config
from tests.sandbox.sandbox_kit import ASK_ALL, call, config, needs_sandbox, text_of

MODES = ["overlay", "workspace"]


def gate_workspace(tmp_path: Path, mode: str, rules: list | None = None) -> Path:
    """A workspace that holds its own config, a hook folder and a git repository."""
    ws = tmp_path / "ws"
    (ws / "hooks" / "x").mkdir(parents=True)
    (ws / "hooks" / "x" / "hook.json").write_text("{}\n")
    (ws / "tools").mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    write_config(ws, {"tools": {"use": ["builtin/bash"], "rules": rules or []},
                      "sandbox": {"mode": mode}})
    return ws


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("target", ["raw.json", "hooks/x/hook.json", ".git/hooks/pre-commit",
                                    ".git/config", "hooks/x/new.py", "tools/t.py"])
def test_the_gate_files_cannot_be_written(tmp_path, needs_sandbox, mode, target):
    ws = gate_workspace(tmp_path, mode)
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    rc, report = call(ws / "raw.json", ws, f"echo pwned > {target}; mv raw.json gone.json; "
                                           f"rm -rf hooks")
    assert rc == 1, report
    assert "Read-only file system" in text_of(report) or "busy" in text_of(report)
    for path, data in before.items():
        assert path.read_bytes() == data, path
    assert not (ws / "gone.json").exists() and not (ws / "hooks/x/new.py").exists()


def test_a_background_writer_leaves_nothing_behind(tmp_path, needs_sandbox):
    cfg = config(tmp_path / "cfg")
    ws = tmp_path / "ws"
    ws.mkdir()
    rc, report = call(cfg, ws, "(sleep 1; echo late > late) & echo now > now")
    assert rc == 0, report
    # the subshell, and its sleep once it started
    assert re.search(r"\n[12] background process(es)? ended with the command$",
                     text_of(report).rstrip()), report
    time.sleep(2)
    assert (ws / "now").read_text() == "now\n" and not (ws / "late").exists()


@pytest.fixture
def host_server():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.sendall(b"hello-from-host\n")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(5)
    server.close()


CONNECT = ("python3 -c \"import socket,sys; s=socket.create_connection(('127.0.0.1', {port}), "
           "timeout=3); print(s.recv(100).decode().strip())\"")


@pytest.mark.parametrize("mode", MODES)
def test_the_network_is_off_unless_allowed(tmp_path, needs_sandbox, host_server, mode):
    ws = tmp_path / "ws"
    ws.mkdir()
    off = config(tmp_path / "off", sandbox={"mode": mode})
    rc, report = call(off, ws, CONNECT.format(port=host_server))
    assert rc == 1 and "hello-from-host" not in text_of(report), report
    on = config(tmp_path / "on", sandbox={"mode": mode, "network": True})
    rc, report = call(on, ws, CONNECT.format(port=host_server))
    assert rc == 0 and "hello-from-host" in text_of(report), report


def test_a_dry_run_has_no_network_even_when_allowed(tmp_path, needs_sandbox, host_server):
    ws = tmp_path / "ws"
    ws.mkdir()
    cfg = config(tmp_path / "cfg", sandbox={"network": True}, rules=ASK_ALL)
    rc, report = call(cfg, ws, CONNECT.format(port=host_server))
    assert report["code"] == "approval_required"
    assert report["observed"]["previewed"] is False
    assert report["observed"]["network"] is False
    assert "hello-from-host" not in report["observed"]["output"]
    # approving a call that was not previewed runs it for real, with the configured network
    rc, report = call(cfg, ws, CONNECT.format(port=host_server), "--approve", "yes")
    assert rc == 0 and "hello-from-host" in text_of(report), report


@pytest.mark.parametrize("mode", MODES)
def test_secrets_and_host_sockets_are_out_of_reach(tmp_path, needs_sandbox, mode):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(runtime / "bus"))
    unix.listen(1)
    # a socket under /run where this user may make one (root, as in CI), else in a folder
    # hidden the same way (tmpfs over XDG_RUNTIME_DIR)
    run_dir = Path(f"/run/raw-tui-sandbox-test-{os.getpid()}") if os.access("/run", os.W_OK) \
        else runtime / "run"
    run_dir.mkdir(exist_ok=True)
    run_sock = socket.socket(socket.AF_UNIX)
    try:
        run_sock.bind(str(run_dir / "s"))
        run_sock.listen(1)
        cfg = config(tmp_path / "cfg", sandbox={"mode": mode, "env_keep": ["KEPT_TOKEN"]})
        ws = tmp_path / "ws"
        ws.mkdir()
        env = {"OPENAI_API_KEY": "sk-openai", "MY_SERVICE_TOKEN": "tok-1",
               "AWS_SECRET_ACCESS_KEY": "aws-1", "DB_PASSWORD": "pw-1", "KEPT_TOKEN": "kept-1",
               "SSH_AUTH_SOCK": str(runtime / "bus"), "DOCKER_HOST": "unix:///run/docker.sock",
               "DBUS_SESSION_BUS_ADDRESS": f"unix:path={runtime}/bus",
               "XDG_RUNTIME_DIR": str(runtime), "PLAIN": "plain-1"}
        probe = ("env; for s in {bus} {run}; do python3 -c \"import socket,sys; "
                 "socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print('CONNECTED', "
                 "sys.argv[1])\" $s; done; true").format(bus=runtime / "bus", run=run_dir / "s")
        rc, report = call(cfg, ws, probe, env=env)
        out = text_of(report)
        assert rc == 0, report
        assert "PLAIN=plain-1" in out and "KEPT_TOKEN=kept-1" in out
        for secret in ("sk-openai", "tok-1", "aws-1", "pw-1", "SSH_AUTH_SOCK", "DOCKER_HOST",
                       "DBUS_SESSION_BUS_ADDRESS"):
            assert secret not in out, secret
        assert "CONNECTED /" not in out and out.count("Error") >= 2, out
    finally:
        run_sock.close()
        unix.close()
        for p in (run_dir / "s",):
            p.unlink(missing_ok=True)
        run_dir.rmdir()


DENY_ENV = [{"match": "builtin/bash", "effect": "deny",
             "when": {"source": "observed", "any": "files[*].path", "regex": "\\.env$"}}]


@pytest.mark.parametrize("command", [
    "echo x > .env",
    "cd sub && printf x | tee ../.env >/dev/null",
    "python3 -c \"open('.' + 'e' + 'nv', 'w').write('x')\"",
    "echo x > tmpfile && mv tmpfile \"$(printf '.e%s' nv)\"",
])
def test_an_observed_deny_rule_holds_whatever_the_text(tmp_path, needs_sandbox, command):
    cfg = config(tmp_path / "cfg", rules=DENY_ENV)
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    rc, report = call(cfg, ws, command)
    assert (rc, report["code"], report["rule"]) == (1, "tool_denied", "deny"), report
    assert not (ws / ".env").exists() and not (ws / "tmpfile").exists()
    rc, report = call(cfg, ws, "echo fine > ok.txt")
    assert rc == 0 and (ws / "ok.txt").exists()


def test_home_and_tmp_writes_are_discarded(tmp_path, needs_sandbox):
    home = tmp_path / "home"
    home.mkdir()
    cfg = config(tmp_path / "cfg", rules=ASK_ALL)
    ws = home / "project"  # a workspace under HOME stays writable
    ws.mkdir()
    env = {"HOME": str(home)}
    rc, report = call(cfg, ws, "mkdir -p ~/.cache/tool && echo c > ~/.cache/tool/x && "
                               "echo t > /tmp/scratch && echo w > in-ws", "--approve", "yes",
                      env=env)
    assert rc == 0, report
    assert (ws / "in-ws").read_text() == "w\n"
    assert not (home / ".cache").exists()
    assert not Path("/tmp/scratch").exists()
    rc, report = call(cfg, ws, "echo t > /tmp/scratch2; echo c > ~/.rc", env=env)
    assert set(report["observed"]["discarded"]) == {str(home / ".rc"), "/tmp/scratch2"}

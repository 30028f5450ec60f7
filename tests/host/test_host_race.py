"""Two hosts for one session: a host binds its socket itself, under the socket directory's
lock, never over a live host's socket (raw_tui/host/paths.py, docs/host.md). Two host
processes started at once for one session: one serves it, the other is refused naming the
live one and exits; a host that ends removes its socket only while it is still its own; a
stale socket is still taken over."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import threading
from pathlib import Path

import pytest

from raw_tui.host.launch import HostStartError, Started
from raw_tui.host.paths import SessionLive, probe, socket_path
from raw_tui.host.server import SessionHost
from tests.engine.session_kit import make_session
from tests.config_kit import raw_tui
from tests.host.host_kit import alive, setup, start, wait_gone

ROUNDS = 4
REPO = Path(__file__).resolve().parents[2]


def _a_saved_session(tmp_path: Path):
    args = setup(tmp_path, [{"text": "hello"}])
    proc = raw_tui("--config", args.config, "--cwd", args.cwd, "run", "hi", "--output", "jsonl")
    assert proc.returncode == 0, proc.stderr
    args.resume = json.loads(proc.stdout.splitlines()[0])["session_id"]
    return args, args.resume


def _start_at_once(args, count: int = 2) -> list[Started | HostStartError]:
    barrier = threading.Barrier(count)
    out: list[Started | HostStartError] = [None] * count  # type: ignore[list-item]

    def one(index: int) -> None:
        barrier.wait()
        try:
            out[index] = start(args)
        except HostStartError as err:
            out[index] = err

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return out


def _listener_pids(path: Path) -> set[int]:
    """The processes holding a listening socket bound at `path` (from /proc/net/unix)."""
    inodes = set()
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[7] == os.fspath(path) and fields[5] == "01":
            inodes.add(fields[6])
    pids = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                pids.add(int(pid))
    return pids


def test_two_hosts_started_at_once_for_one_session_one_serves_the_other_is_refused(tmp_path):
    args, session_id = _a_saved_session(tmp_path)
    path = socket_path(session_id)
    for round in range(ROUNDS):
        if round % 2:  # a crashed host's socket at the path: taken over by one of them
            with socket.socket(socket.AF_UNIX) as stale:
                stale.bind(os.fspath(path))
        results = _start_at_once(args)
        started = [r for r in results if isinstance(r, Started)]
        refused = [r for r in results if isinstance(r, HostStartError)]
        try:
            assert len(started) == 1 and len(refused) == 1, results
            (host,), (err,) = started, refused
            assert err.code == "live"
            assert f"session {session_id} is live" in err.message
            assert f"pid {host.pid}" in err.message and str(host.socket) in err.message
            status = probe(host.socket)
            assert status is not None and status.pid == host.pid  # clients reach the host
            assert _listener_pids(host.socket) == {host.pid}  # nobody else listens, unreached
            lock = host.socket.parent / ".lock"
            assert stat.S_IMODE(lock.lstat().st_mode) == 0o600
        finally:
            for host in started:
                os.kill(host.pid, signal.SIGTERM)
                assert wait_gone(host.pid)
        assert not host.socket.exists()


def test_a_host_that_ends_leaves_a_socket_that_is_no_longer_its_own(tmp_path):
    """Its path now names another listener's socket: the ending host leaves it."""
    args = setup(tmp_path, [])
    host = start(args)
    other = socket.socket(socket.AF_UNIX)
    try:
        os.unlink(host.socket)
        other.bind(os.fspath(host.socket))
        other.listen()
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)
        assert host.socket.exists()
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(os.fspath(host.socket))  # still the other listener's
    finally:
        other.close()
        if alive(host.pid):
            os.kill(host.pid, signal.SIGKILL)


async def test_a_host_never_binds_over_a_live_socket(tmp_path):
    h = make_session(tmp_path, [], interactive=True)
    path = socket_path(h.session.session_id)
    live = socket.socket(socket.AF_UNIX)
    live.bind(os.fspath(path))
    live.listen()
    inode = path.lstat().st_ino
    host = SessionHost(h.session)
    try:
        with pytest.raises(SessionLive, match=f"session {h.session.session_id} is live"):
            await host.start(path)
        assert path.lstat().st_ino == inode  # the live socket is still there, unreplaced
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(os.fspath(path))
    finally:
        live.close()
        await h.session.close()


def test_a_refused_host_runs_no_hook_of_the_live_session(tmp_path, monkeypatch):
    """Refused, it never served the session: no SessionEnd (nor anything) runs for it while
    the live host goes on."""
    log = tmp_path / "hooks.jsonl"
    monkeypatch.setenv("RAW_TUI_HOOK_LOG", str(log))
    args = setup(tmp_path, [{"text": "hello"}], hooks={"use": ["agent/log"]})
    shutil.copytree(REPO / "hooks" / "log", Path(args.config).parent / "hooks" / "log")
    proc = raw_tui("--config", args.config, "--cwd", args.cwd, "run", "hi", "--output", "jsonl")
    assert proc.returncode == 0, proc.stderr
    args.resume = json.loads(proc.stdout.splitlines()[0])["session_id"]
    host = start(args)
    try:
        def saved() -> str:
            return raw_tui("--config", args.config, "--cwd", args.cwd, "sessions", "show",
                           args.resume).stdout

        before, stored = log.read_text().splitlines(), saved()
        with pytest.raises(HostStartError, match="is live"):
            start(args)
        assert log.read_text().splitlines() == before
        assert saved() == stored  # nothing written to its history either
        assert probe(host.socket).pid == host.pid
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)
    ends = [json.loads(line)["event"] for line in log.read_text().splitlines()]
    assert ends.count("SessionStart") == ends.count("SessionEnd") == 2  # the run's, the host's

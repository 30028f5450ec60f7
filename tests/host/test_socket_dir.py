"""The socket directory: `$XDG_RUNTIME_DIR/raw-tui/` only when that runtime directory is ours
and 0700, else `/tmp/raw-tui-<uid>/`, never under the state directory; checked with lstat
(ours, 0700, not a symlink) before every use, listing too; only sockets of ours unlinked; what
a host says escaped when printed; a refused directory is one line, never a traceback."""

from __future__ import annotations

import io
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from raw_tui.host import paths
from raw_tui.host import protocol as wire
from raw_tui.host.choose import live_marks, offer_attach
from raw_tui.session.request import SessionRequest
from raw_tui.host.paths import SocketDirError, live_sessions, socket_dir
from tests.config_kit import raw_tui
from tests.host.host_kit import setup, start, wait_gone

ROOT = os.geteuid() == 0


@pytest.fixture
def fallback_root(monkeypatch, tmp_path):
    """`/tmp` of the fallback, for tests that must not touch the machine's own."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(paths, "FALLBACK_ROOT", str(root))
    return root


def test_the_runtime_dir_is_used_when_it_is_ours_and_0700(runtime_dir):
    folder = socket_dir()
    assert folder == Path(runtime_dir) / "raw-tui"
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o755, 0o711])
def test_a_runtime_dir_others_may_enter_is_not_used(runtime_dir, fallback_root, mode):
    os.chmod(runtime_dir, mode)
    folder = socket_dir()
    assert folder == fallback_root / f"raw-tui-{os.getuid()}"
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o700
    assert not (Path(runtime_dir) / "raw-tui").exists()


def test_a_runtime_dir_that_is_a_symlink_or_unset_is_not_used(runtime_dir, fallback_root,
                                                              monkeypatch, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(runtime_dir)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(link))
    assert socket_dir() == fallback_root / f"raw-tui-{os.getuid()}"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert socket_dir() == fallback_root / f"raw-tui-{os.getuid()}"
    monkeypatch.setenv("XDG_RUNTIME_DIR", "relative/dir")
    assert socket_dir() == fallback_root / f"raw-tui-{os.getuid()}"


def test_a_planted_symlink_is_refused_and_never_followed(runtime_dir, tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    planted = victim / "s1.sock"
    planted.write_text("precious\n")
    (Path(runtime_dir) / "raw-tui").symlink_to(victim)
    for look in (socket_dir, lambda: socket_dir(create=False), live_sessions):
        with pytest.raises(SocketDirError, match="a symlink"):
            look()
    assert planted.read_text() == "precious\n"


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o701])
def test_a_socket_dir_others_may_enter_is_refused_in_one_line(runtime_dir, mode):
    folder = Path(runtime_dir) / "raw-tui"
    folder.mkdir()
    os.chmod(folder, mode)
    with pytest.raises(SocketDirError) as err:
        socket_dir()
    assert str(err.value) == f"socket directory {folder}: mode {mode:o}, must be 700"
    assert stat.S_IMODE(folder.lstat().st_mode) == mode  # never loosened or tightened


@pytest.mark.skipif(not ROOT, reason="needs root to give the directory to another user")
def test_a_socket_dir_of_another_user_is_refused(runtime_dir):
    folder = Path(runtime_dir) / "raw-tui"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    with pytest.raises(SocketDirError, match="owned by uid 65534"):
        socket_dir()


def test_only_sockets_of_ours_are_unlinked(runtime_dir, tmp_path):
    folder = socket_dir()
    regular = folder / "s1.sock"
    regular.write_text("not a socket\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("not ours to remove\n")
    (folder / "s2.sock").symlink_to(elsewhere)
    stale = folder / "s3.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(os.fspath(stale))  # bound, then closed: nobody listens (a crashed host)
    assert live_sessions() == {}
    assert regular.read_text() == "not a socket\n"
    assert (folder / "s2.sock").is_symlink() and elsewhere.exists()
    assert not stale.exists()  # our own stale socket is cleaned
    with pytest.raises(SocketDirError, match="not a socket of ours"):
        paths.clear_stale(regular)  # a host never binds over it
    assert regular.exists()


@pytest.mark.skipif(not ROOT, reason="needs root to make a socket another user's")
def test_a_stale_socket_of_another_user_is_left(runtime_dir):
    folder = socket_dir()
    stale = folder / "s4.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(os.fspath(stale))
    os.chown(stale, 65534, 65534)
    assert live_sessions() == {}
    assert stale.exists()


class FakeHost:
    """A listener that answers every probe with `status` (what a hostile host could say)."""

    def __init__(self, path: Path, status: wire.Status) -> None:
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(os.fspath(path))
        self.sock.listen()
        self.status = status
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.recv(4096)
                conn.sendall(wire.encode(self.status))

    def close(self) -> None:
        self.sock.close()


def _status(session_id: str, **fields) -> wire.Status:
    base = dict(version=wire.PROTOCOL_VERSION, session_id=session_id, cwd="/w", agent="a",
                state="idle", clients=0, pid=1)
    return wire.Status(**{**base, **fields})


def test_what_a_host_says_is_escaped_and_it_answers_for_its_own_socket_only(runtime_dir):
    folder = socket_dir()
    evil = "idle\x1b]0;pwned\x07\x1b[2J\x9b1m"
    hosts = [FakeHost(folder / "s1.sock", _status("s1", state=evil)),
             FakeHost(folder / "s2.sock", _status("s9-someone-else"))]
    try:
        marks = live_marks()
        assert set(marks) == {"s1"}  # s2's host claims another session: not believed
        assert "\x1b" not in marks["s1"] and "\x07" not in marks["s1"]
        assert "\x9b" not in marks["s1"]
        assert "\\x1b]0;pwned" in marks["s1"]
        class Tty(io.StringIO):
            def isatty(self) -> bool:
                return True

        out = Tty()
        assert offer_attach(SessionRequest(cwd=Path("/w")), stdin=Tty("n\n"), out=out) is None
        assert "\x1b" not in out.getvalue() and "\\x1b" in out.getvalue()
    finally:
        for host in hosts:
            host.close()


def test_sessions_list_with_a_refused_socket_dir_warns_in_one_line(runtime_dir, tmp_path):
    args = setup(tmp_path, [])
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "s1.sock").write_text("precious\n")
    (Path(runtime_dir) / "raw-tui").symlink_to(victim)
    proc = raw_tui("--config", args.config, "--cwd", args.cwd, "sessions", "list")
    assert proc.returncode == 0
    (line,) = proc.stderr.splitlines()
    assert line.startswith("raw-tui: warning: socket directory ") and "symlink" in line
    assert (victim / "s1.sock").read_text() == "precious\n"


@pytest.mark.parametrize("how", ["mode 755", "a symlink"])
def test_attach_with_a_refused_socket_dir_is_one_line(runtime_dir, tmp_path, how):
    args = setup(tmp_path, [])
    folder = Path(runtime_dir) / "raw-tui"
    if how == "a symlink":
        folder.symlink_to(tmp_path)
    else:
        folder.mkdir(mode=0o755)
        os.chmod(folder, 0o755)
    proc = raw_tui("--config", args.config, "--cwd", args.cwd, "attach")
    assert proc.returncode == 1
    assert proc.stderr.startswith("raw-tui: socket directory ")
    assert how in proc.stderr or "symlink" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_long_state_dir_does_not_stop_a_host(runtime_dir, tmp_path, monkeypatch):
    """No usable runtime dir and a state dir far longer than a socket path: the socket is
    in /tmp/raw-tui-<uid>/, the host starts."""
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(deep))
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    args = setup(tmp_path, [])
    host = start(args)
    try:
        assert host.socket.parent == Path(f"/tmp/raw-tui-{os.getuid()}")
        assert not str(host.socket).startswith(str(deep))
    finally:
        os.kill(host.pid, 15)
        assert wait_gone(host.pid)

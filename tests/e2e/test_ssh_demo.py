"""The installed `raw-tui` over SSH: a private sshd on 127.0.0.1 (its own config, host key
and authorized key in a temp dir), `ssh -tt localhost /venv/bin/raw-tui` inside tmux at
80×24, the demo's first screen and one prompt up to the approval modal, then Ctrl+Q.

Installs nothing: skipped when sshd (openssh-server), ssh, ssh-keygen or tmux is missing,
or when sshd's privilege separation directory cannot be made.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.terminal_kit import (RAW_TUI, Tmux, demo_note, isolated_env, place,
                                    quit_app, status_line)

__all__ = ["place"]  # the fixture, re-used


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin:/sbin")


SSHD, SSH, KEYGEN = _which("sshd"), _which("ssh"), _which("ssh-keygen")

pytestmark = pytest.mark.skipif(
    not (SSHD and SSH and KEYGEN and shutil.which("tmux")),
    reason="needs sshd (openssh-server), ssh, ssh-keygen (openssh-client) and tmux")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"sshd exited: {proc.stderr.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                if conn.recv(4).startswith(b"SSH-"):
                    return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("sshd did not answer")


@pytest.fixture
def sshd(tmp_path):
    """A private sshd: yields (port, client key path)."""
    try:
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # privilege separation dir
    except OSError as err:
        pytest.skip(f"cannot make /run/sshd: {err}")
    d = tmp_path / "sshd"
    d.mkdir()
    for key in ("host_key", "client_key"):
        subprocess.run([KEYGEN, "-q", "-t", "ed25519", "-N", "", "-f", str(d / key)],
                       check=True, capture_output=True)
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    os.chmod(d / "authorized_keys", 0o600)
    port = free_port()
    (d / "sshd_config").write_text("\n".join([
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {d / 'host_key'}",
        f"AuthorizedKeysFile {d / 'authorized_keys'}", f"PidFile {d / 'sshd.pid'}",
        "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes", "StrictModes no", "PermitRootLogin prohibit-password",
        "PrintMotd no", "PrintLastLog no", "LogLevel ERROR", ""]))
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(d / "sshd_config")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_port(port, proc)
        yield port, d / "client_key"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_demo_over_ssh_in_tmux(sshd, place):
    port, key = sshd
    env = isolated_env(place)
    # a remote command runs in a non-login shell: the venv's executable by path, the
    # isolated XDG directories on the command line (ssh does not pass the environment)
    remote = "cd {} && env {} {}".format(
        shlex.quote(str(place / "w")),
        " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.startswith(("XDG_", "RAW_TUI_"))),
        shlex.quote(str(RAW_TUI)))
    ssh = [SSH, "-tt", "-F", "/dev/null", "-p", str(port), "-i", str(key),
           "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
           "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
           "-o", "LogLevel=ERROR", "localhost", remote]
    tmux = Tmux(env=env)
    try:
        tmux.start(ssh, cwd=place)
        # the first screen: composer, status line with its quit hint, no sidebar at 80
        screen = tmux.wait_for(lambda s: "idle" in status_line(s) and "Message" in s)
        assert "^q quit" in status_line(screen) and "demo · demo" in status_line(screen)
        assert "No panels yet" not in screen
        # one prompt, up to the approval modal with the demo's scratch path
        tmux.type("hello over ssh")
        tmux.keys("Enter")
        tmux.wait_for("› hello over ssh")
        tmux.wait_for(lambda s: "Approve write_file?" in s and str(demo_note(env)) in s)
        quit_app(tmux)  # Ctrl+Q with the approval pending: a clean exit, over SSH too
        assert not demo_note(env).exists()
    finally:
        tmux.kill()

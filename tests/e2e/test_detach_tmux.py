"""Detach and attach with the real UI in tmux: the session host outlives the terminal.

- SSH drop (`ssh localhost` inside tmux, the private sshd of test_ssh_demo): reach the
  approval modal, kill the ssh client with SIGKILL (and, separately, the whole tmux server),
  log in again, `raw-tui attach`: the same modal, `a` writes the file, the turn goes on;
  `sessions show` holds one unbroken turn.
- Bare `raw-tui` in a directory whose latest session is live asks whether to attach.
- The detach key leaves the session running; Ctrl+Q ends it and its host.
- `--no-detach` starts no host.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.test_ssh_demo import KEYGEN, SSH, SSHD, sshd  # noqa: F401 (the fixture)
from tests.e2e.terminal_kit import (EXITED, RAW_TUI, Tmux, demo_note, flat, isolated_env,
                                    place, quit_app, raw_tui_cli, status_line)
from tests.config_kit import session_host_pids

__all__ = ["place", "sshd"]

MARK = os.environ.get("RAW_TUI_TEST_RUN", "")


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def pane_processes(tmux: Tmux, name: str) -> list[int]:
    """Processes named `name` below the pane's shell."""
    shell = int(tmux._tmux("list-panes", "-t", tmux.name, "-F", "#{pane_pid}").stdout.split()[0])
    found, todo = [], [shell]
    while todo:
        pid = todo.pop()
        for child in children(pid):
            todo.append(child)
            try:
                if Path(f"/proc/{child}/comm").read_text().strip() == name:
                    found.append(child)
            except OSError:
                pass
    return found


def ui_processes() -> list[int]:
    """raw-tui UI processes of this test run (not hosts)."""
    out = []
    needle = f"RAW_TUI_TEST_RUN={MARK}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        argv = cmdline.split(b"\0")[:2]  # python, the raw-tui script (not a shell naming it)
        if any(arg.endswith(b"/raw-tui") for arg in argv) and needle in environ:
            out.append(int(entry))
    return out


def wait(predicate, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def stored(env: dict, cwd: Path, session_id: str) -> list[dict]:
    shown = raw_tui_cli(env, cwd, "sessions", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    return [json.loads(line) for line in shown.stdout.splitlines()]


def only_session(env: dict, cwd: Path) -> tuple[str, str]:
    listing = raw_tui_cli(env, cwd, "sessions", "list")
    (row,) = listing.stdout.splitlines()
    return row.split()[0], row


def ssh_argv(port: int, key: Path, env: dict, cwd: Path, *args: str) -> list[str]:
    remote = "cd {} && env {} {}".format(
        shlex.quote(str(cwd)),
        " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()
                 if k.startswith(("XDG_", "RAW_TUI_"))),
        shlex.join([str(RAW_TUI), *args]))
    return [SSH, "-tt", "-F", "/dev/null", "-p", str(port), "-i", str(key),
            "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", "localhost", remote]


def reach_the_modal(tmux: Tmux, note: Path, prompt: str) -> str:
    tmux.wait_for(lambda s: "idle" in status_line(s) and "^q quit" in status_line(s))
    tmux.type(prompt)
    tmux.keys("Enter")
    return tmux.wait_for(lambda s: "Approve write_file?" in s and str(note) in s)


@pytest.mark.skipif(not (SSHD and SSH and KEYGEN), reason="needs openssh-server and ssh")
@pytest.mark.parametrize("drop", ["kill -9 ssh", "kill the tmux server"])
def test_ssh_drop_then_attach_answers_the_same_approval(sshd, place, drop):  # noqa: F811
    port, key = sshd
    env = isolated_env(place)
    note = demo_note(env)
    tmux = Tmux(env=env)
    try:
        tmux.start(ssh_argv(port, key, env, place / "w"), cwd=place)
        reach_the_modal(tmux, note, "hello over ssh")
        session_id, row = only_session(env, place / "w")
        assert "live (waiting for approval)" in row
        if drop == "kill -9 ssh":
            (client,) = pane_processes(tmux, "ssh")
            os.kill(client, signal.SIGKILL)
            wait(lambda: not pane_processes(tmux, "ssh"))
        else:
            tmux.kill()
        wait(lambda: not ui_processes())  # the UI died with its terminal ...
        assert session_host_pids(MARK)  # ... its session did not
        assert "live (waiting for approval)" in only_session(env, place / "w")[1]
        assert not note.exists()
    finally:
        tmux.kill()

    again = Tmux(env=env)
    try:
        again.start(ssh_argv(port, key, env, place / "w", "attach"), cwd=place)
        screen = again.wait_for(lambda s: "Approve write_file?" in s and str(note) in s)
        effects = screen[screen.index("Intended effects"):screen.index("Arguments")]
        assert str(note) in effects
        again.keys("a")
        again.wait_for(lambda s: note.exists())
        again.wait_for(lambda s: "Which colour should the next demo use?" in s
                       and "form ^s" in status_line(s))  # the form has the keyboard
        again.keys("Down", "Enter")
        again.wait_for("(•) Green")
        again.keys("C-s")
        again.wait_for("All done. Try a panel action")
        again.wait_for(lambda s: "idle" in status_line(s))
        quit_app(again)
    finally:
        again.kill()
    assert note.read_text() == "Written by the raw-tui demo.\n"
    wait(lambda: not session_host_pids(MARK))
    events = stored(env, place / "w", session_id)
    types = [e["type"] for e in events]
    assert types.count("session_start") == 1 and types.count("user_message") == 1
    assert types.count("run_end") == 1
    assert events[types.index("run_end")]["status"] == "completed"
    turn = events[types.index("user_message")]["turn_id"]
    start, end = types.index("user_message"), types.index("run_end")
    assert all(e.get("turn_id", turn) == turn for e in events[start:end + 1])
    decision = next(e for e in events if e["type"] == "approval_decision")
    assert decision["allow"] is True


def test_a_live_session_is_offered_then_detach_key_then_quit_ends_the_host(place):
    env = isolated_env(place)
    note = demo_note(env)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        reach_the_modal(tmux, note, "hello")
        tmux.keys("d")  # deny: the turn goes on to the form
        tmux.wait_for("Which colour should the next demo use?")
        tmux.keys("C-\\")  # raw.detach
        left = tmux.wait_for(f"{EXITED}0")
        assert "is still running (detached)" in flat(left) and "raw-tui attach s" in flat(left)
    finally:
        tmux.kill()
    (host,) = session_host_pids(MARK)
    assert "live (waiting for a question)" in only_session(env, place / "w")[1]

    again = Tmux(env=env)
    try:
        again.start([str(RAW_TUI)], cwd=place / "w")
        again.wait_for("Attach to it? [Y/n]")
        again.keys("Enter")
        again.wait_for(lambda s: "Which colour should the next demo use?" in s
                       and "Ctrl+S submit" in s and "1 question" in status_line(s))
        quit_app(again)  # Ctrl+Q: the session ends, and its host
    finally:
        again.kill()
    wait(lambda: not session_host_pids(MARK))
    assert "live" not in raw_tui_cli(env, place / "w", "sessions", "list").stdout


def test_no_detach_runs_the_session_in_the_ui(place):
    env = isolated_env(place)
    tmux = Tmux(env=env)
    try:
        tmux.start([str(RAW_TUI), "--no-detach"], cwd=place / "w")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        assert session_host_pids(MARK) == []
        tmux.keys("C-\\")
        tmux.wait_for("--no-detach")  # the detach key says why it cannot
        quit_app(tmux)
    finally:
        tmux.kill()
    assert "live" not in raw_tui_cli(env, place / "w", "sessions", "list").stdout

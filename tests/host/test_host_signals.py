"""How a host ends: SIGINT as SIGTERM does (the session closed, the history whole), SIGHUP
ignored (and not passed on as ignored to its commands); a host that ends is reaped by the
process that started it at once, not left a zombie; a client that never says attach or probe
gets `bye bad_frame` after 10 s."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from pathlib import Path

from raw_tui.protocol import commands as cmd
from raw_tui.host import protocol as wire
from raw_tui.host.client import HostClient
from raw_tui.host.paths import probe
from tests.config_kit import raw_tui
from tests.host.host_kit import bash_call, setup, start, until, wait_gone


def _state(pid: int) -> str | None:
    """The process's state letter (Z: a zombie), None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next(line.split()[1] for line in status.splitlines() if line.startswith("State:"))


def _gone_without_our_wait(pid: int, timeout: float = 20) -> bool:
    """Gone from /proc (reaped by the starter's own thread: this test never waits for it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _state(pid) is None:
            return True
        time.sleep(0.05)
    return False


def _stored(args, session_id: str) -> list[dict]:
    shown = raw_tui("--config", args.config, "--cwd", args.cwd, "sessions", "show", session_id)
    return [json.loads(x) for x in shown.stdout.splitlines()]


def test_a_sigtermed_host_is_reaped_at_once(tmp_path):
    args = setup(tmp_path, [])
    host = start(args)
    os.kill(host.pid, signal.SIGTERM)
    assert _gone_without_our_wait(host.pid), f"state {_state(host.pid)}"


def test_sigint_ends_the_host_cleanly(tmp_path):
    args = setup(tmp_path, [])
    host = start(args)
    os.kill(host.pid, signal.SIGINT)
    assert _gone_without_our_wait(host.pid), f"state {_state(host.pid)}"
    assert not host.socket.exists()
    stored = _stored(args, host.session_id)
    # closed as Quit closes it: a session in which nothing happened is not kept at all
    # (docs/decisions.md, "Calls, forms and the demo"); one that was kept ends closing
    assert stored == [] or (stored[-1]["type"], stored[-1]["state"]) == ("turn_state", "closing")


async def test_sighup_is_ignored_and_not_passed_on_as_ignored(tmp_path):
    args = setup(tmp_path, [bash_call("sleep 60", timeout_ms=120_000)])
    host = start(args)
    try:
        os.kill(host.pid, signal.SIGHUP)
        time.sleep(0.5)
        assert probe(host.socket).session_id == host.session_id  # still serving
        client = await HostClient.connect(host.socket)
        await client.open()
        assert (await client.handle(cmd.Prompt(text="sleep"))).ok
        sleeper: list[int] = []

        def find_sleep() -> bool:
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        line = Path(f"/proc/{entry}/cmdline").read_bytes()
                    except OSError:
                        continue
                    if line == b"sleep\x0060\x00":
                        sleeper.append(int(entry))
                        return True
            return False

        await until(find_sleep, 30)
        status = Path(f"/proc/{sleeper[0]}/status").read_text()
        ignored = int(next(x for x in status.splitlines() if x.startswith("SigIgn:")).split()[1],
                      16)
        assert not ignored & (1 << (signal.SIGHUP - 1)), "the command inherited SIGHUP ignored"
        assert not ignored & (1 << (signal.SIGINT - 1)), "the command inherited SIGINT ignored"
        await client.close()
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)


def test_a_client_that_never_handshakes_gets_bye_after_10_s(tmp_path):
    args = setup(tmp_path, [])
    host = start(args)
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(os.fspath(host.socket))
            sock.settimeout(wire.HANDSHAKE_TIMEOUT_S + 20)
            began = time.monotonic()
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(4096)
                assert chunk, f"closed without a bye after {time.monotonic() - began:.1f} s"
                data += chunk
            waited = time.monotonic() - began
            bye = wire.decode_host(data)
            assert isinstance(bye, wire.Bye) and bye.reason == "bad_frame"
            assert "within 10 s" in bye.message
            assert wire.HANDSHAKE_TIMEOUT_S - 1 <= waited < wire.HANDSHAKE_TIMEOUT_S + 10
            assert sock.recv(4096) == b""  # then closed
        assert probe(host.socket).session_id == host.session_id  # the host goes on
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)

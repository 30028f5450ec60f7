"""`raw-tui serve` started for a test: the URL it printed (with its token), the cookie that
token buys, websockets that carry it, and what serve logged."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path

import httpx
import pytest

from tests.e2e.terminal_kit import RAW_TUI, isolated_env

URL_LINE = re.compile(r"serving on (http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    url: str  # http://127.0.0.1:PORT, no token
    token_url: str  # what serve printed
    place: Path
    port: int
    output: list[str] = field(default_factory=list)  # serve's stdout and stderr, by line

    def cookie(self) -> tuple[str, str]:
        """(name, value) of the cookie the token URL sets."""
        answer = httpx.get(self.token_url, timeout=10, follow_redirects=False)
        assert answer.status_code == 303, answer.text
        jar = SimpleCookie()
        jar.load(answer.headers["set-cookie"])
        (name, morsel), = jar.items()
        return name, morsel.value

    def cookie_header(self) -> dict[str, str]:
        name, value = self.cookie()
        return {"Cookie": f"{name}={value}"}

    def ws_headers(self) -> dict[str, str]:
        """What a browser tab opened from the token URL sends with its websocket."""
        return {**self.cookie_header(), "Origin": self.url}

    def refusals(self, expected: int = 0, timeout: float = 10.0) -> list[str]:
        """The server's `refused` lines, once there are `expected` of them (a refusal is
        logged after its answer is sent: the line can come a moment after the 403)."""
        deadline = time.monotonic() + timeout
        while True:
            lines = [line for line in list(self.output) if "refused" in line]
            if len(lines) >= expected or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)


@pytest.fixture
def served(place):
    env = isolated_env(place)
    port = free_port()
    proc = subprocess.Popen([str(RAW_TUI), "serve", "--port", str(port)], cwd=place / "w",
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    output: list[str] = []
    found = threading.Event()

    def drain() -> None:  # serve's output, read all along (a full pipe would stop it)
        for line in proc.stdout:
            output.append(line.rstrip("\n"))
            if URL_LINE.search(line):
                found.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not found.wait(0.1):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("serve printed no URL: " + "\n".join(output))
        (token_url,) = [m.group(1) for line in output if (m := URL_LINE.search(line))]
        while True:  # listening (a request without the cookie would be a logged refusal)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield Served(url=url, token_url=token_url, place=place, port=port, output=output)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
    # every tab's app ended with the server (the session's host outlives it by design; the
    # autouse fixture ends it)
    assert _tab_apps_left(place) == []


def tab_apps(place: Path) -> list[str]:
    """Command lines of the tabs' app processes running in `place` (not its host)."""
    return [cmd for cmd in _command_lines() if str(place) in cmd and "raw_tui.host" not in cmd
            and " serve " not in f"{cmd} "]


def _tab_apps_left(place: Path, timeout: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        left = tab_apps(place)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _command_lines() -> list[str]:
    lines = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                data = (entry / "cmdline").read_bytes()
                if "\nState:\tZ" not in (entry / "status").read_text():
                    lines.append(data.replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                continue
    return lines

"""`raw-tui serve`: the installed command serves the page on 127.0.0.1, and a browser tab
(its websocket) gets its own app process that draws the demo and takes keys.

Skipped when textual-serve is not installed.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from pathlib import Path

import aiohttp  # textual-serve's (a dependency of raw-tui): these tests never skip
import httpx
import pytest

from tests.e2e.serve_kit import served
from tests.e2e.terminal_kit import RAW_TUI, demo_note, isolated_env, place

__all__ = ["place", "served"]

TAB_TIMEOUT_S = 120.0
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


@pytest.fixture
def server(served):
    """The served demo (every tab's app ends with the server: `served` checks)."""
    return served


def test_serve_answers_with_the_page_on_localhost(server):
    url, cookie = server.url, server.cookie_header()
    page = httpx.get(url + "/", timeout=10, headers=cookie)
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    assert "raw-tui" in page.text and "/ws" in page.text
    assert httpx.get(url + "/static/js/textual.js", timeout=10,
                     headers=cookie).status_code == 200


async def _screen_until(ws, needle: bytes, seen: bytearray, timeout: float = 30.0) -> bytes:
    """Read the app's output from the websocket until `needle` shows (escapes removed)."""
    deadline = time.monotonic() + timeout
    while needle not in ANSI.sub(b"", bytes(seen)):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {needle!r} in {ANSI.sub(b'', bytes(seen))[-2000:]!r}")
        try:
            message = await ws.receive(timeout=left)
        except asyncio.TimeoutError:
            continue  # fails above, with the screen
        if message.type == aiohttp.WSMsgType.BINARY:
            seen.extend(message.data)
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                              aiohttp.WSMsgType.ERROR):
            raise AssertionError("the websocket closed")
    return bytes(seen)


def test_a_browser_tab_runs_the_demo(server):
    url, place = server.url, server.place
    headers = server.ws_headers()

    async def tab() -> None:
        async with aiohttp.ClientSession() as http:
            ws_url = url.replace("http", "ws") + "/ws?width=100&height=30"
            async with http.ws_connect(ws_url, headers=headers) as ws:
                seen = bytearray()
                await _screen_until(ws, b"idle", seen)
                await _screen_until(ws, b"^q quit", seen)
                await ws.send_json(["stdin", "hello from a browser"])
                await ws.send_json(["stdin", "\r"])
                await _screen_until(ws, b"hello from a browser", seen)
                await _screen_until(ws, b"Approve write_file?", seen)
                await ws.send_json(["stdin", "\x11"])  # Ctrl+Q: the tab's app exits
                deadline = time.monotonic() + 30
                while not ws.closed and time.monotonic() < deadline:
                    message = await ws.receive(timeout=deadline - time.monotonic())
                    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                        break
                    if message.type == aiohttp.WSMsgType.TEXT and "exit" in message.data:
                        break

    asyncio.run(tab())
    # the tab's session was saved and closed cleanly, in the server's working directory
    env = isolated_env(place)
    listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=env, cwd=place / "w",
                             capture_output=True, text=True, timeout=60)
    (row,) = listing.stdout.splitlines()
    assert "hello from a browser" in row and str(place / "w") in row
    shown = subprocess.run([str(RAW_TUI), "sessions", "show", row.split()[0]], env=env,
                           cwd=place / "w", capture_output=True, text=True, timeout=60)
    assert '"state":"closing"' in shown.stdout.replace(" ", "")


def test_a_browser_tab_and_a_terminal_client_share_the_hosted_session(server):
    """The tab attaches to the session `serve` started; a second client (as `raw-tui attach`
    from a terminal would) answers the approval, and the tab's modal gives way."""
    from raw_tui.protocol import commands
    from raw_tui.host.client import HostClient

    url, place = server.url, server.place
    env = isolated_env(place)
    headers = server.ws_headers()

    async def tab() -> None:
        async with aiohttp.ClientSession() as http:
            ws_url = url.replace("http", "ws") + "/ws?width=100&height=30"
            async with http.ws_connect(ws_url, headers=headers) as ws:
                seen = bytearray()
                await _screen_until(ws, b"^q quit", seen)
                await ws.send_json(["stdin", "hello from a browser"])
                await ws.send_json(["stdin", "\r"])
                await _screen_until(ws, b"Approve write_file?", seen)
                listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=env,
                                         cwd=place / "w", capture_output=True, text=True,
                                         timeout=60)
                (row,) = listing.stdout.splitlines()
                assert "live (waiting for approval)" in row
                session_id = row.split()[0]
                sockets = Path(env["XDG_RUNTIME_DIR"]) / "raw-tui"
                terminal = await HostClient.connect(sockets / f"{session_id}.sock")
                assert terminal.snapshot.clients == 2
                (request,) = terminal.snapshot.approvals
                reply = await terminal.handle(commands.ApprovalAnswer(call_id=request.call_id,
                                                                      allow=True))
                assert reply.ok
                seen.clear()
                await _screen_until(ws, b"1 question", seen)  # the modal closed, the turn went on
                await terminal.handle(commands.Quit())
                await terminal.close()

    asyncio.run(asyncio.wait_for(tab(), TAB_TIMEOUT_S))  # fail, never hang
    assert demo_note(env).read_text() == "Written by the raw-tui demo.\n"


def _packet(kind: bytes, payload: bytes) -> bytes:
    """textual-serve's framing on the app's stdin: kind, 4-byte big-endian length, payload."""
    return kind + len(payload).to_bytes(4, "big") + payload


@pytest.mark.parametrize("mode", [[], ["--no-detach"]], ids=["hosted", "in-process"])
def test_keys_a_tab_sends_before_the_session_opens_are_not_lost(place, mode):
    """A tab's keys reach the app as soon as its first frame is drawn, before the session is
    open. The prompt they type is sent once it is (it used to wait for the open forever)."""
    env = isolated_env(place, TEXTUAL_DRIVER="textual.drivers.web_driver:WebDriver",
                       COLUMNS="100", ROWS="30")

    async def app() -> None:
        process = await asyncio.create_subprocess_exec(
            str(RAW_TUI), "--cwd", str(place / "w"), *mode, env=env, cwd=place / "w",
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        seen = bytearray()

        async def screen_until(needle: bytes) -> None:
            deadline = time.monotonic() + 30
            while needle not in ANSI.sub(b"", bytes(seen)):
                left = deadline - time.monotonic()
                assert left > 0, f"no {needle!r} in {ANSI.sub(b'', bytes(seen))[-2000:]!r}"
                try:
                    data = await asyncio.wait_for(process.stdout.read(65536), left)
                except asyncio.TimeoutError:
                    continue
                assert data, f"the app exited before {needle!r}"
                seen.extend(data)

        try:
            process.stdin.write(_packet(b"M", b'{"type": "resize", "width": 100, "height": 30}'))
            await screen_until(b"^q quit")  # the first frame: the session is not open yet
            process.stdin.write(_packet(b"D", b"typed at once\r"))
            await screen_until(b"Approve write_file?")  # the demo's turn ran on that prompt
            process.stdin.write(_packet(b"D", b"\x11"))  # Ctrl+Q ends the session
            assert await asyncio.wait_for(process.wait(), 30) == 0
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()

    asyncio.run(asyncio.wait_for(app(), TAB_TIMEOUT_S))
    listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=isolated_env(place),
                             cwd=place / "w", capture_output=True, text=True, timeout=60)
    (row,) = listing.stdout.splitlines()
    assert "typed at once" in row and "live" not in row

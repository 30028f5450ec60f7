"""`raw-tui serve` serves only whoever opened the URL it printed: the token buys a cookie;
without that cookie, or with a foreign `Origin` or `Host`, every request and every websocket
is answered 403, logged, and changes nothing (no tab's app starts, no prompt reaches the
session). The page loads nothing from outside the machine."""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import re
import shutil
import subprocess
from pathlib import Path

import aiohttp  # textual-serve's (a dependency of raw-tui): these tests never skip
import httpx
import pytest

from tests.e2e.serve_kit import Served, served, tab_apps
from tests.e2e.terminal_kit import RAW_TUI, isolated_env, place

__all__ = ["place", "served"]

OTHER_USER = "rawtui-other"


def _history(served: Served) -> list[dict]:
    env = isolated_env(served.place)
    listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=env,
                             cwd=served.place / "w", capture_output=True, text=True, timeout=60)
    events = []
    for row in listing.stdout.splitlines():
        shown = subprocess.run([str(RAW_TUI), "sessions", "show", row.split()[0]], env=env,
                               cwd=served.place / "w", capture_output=True, text=True,
                               timeout=60)
        events += [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]
    return events


def test_the_token_url_buys_a_cookie_and_drops_the_token(served):
    answer = httpx.get(served.token_url + "&fontsize=18", timeout=10)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/?fontsize=18"  # the same URL without the token
    set_cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie
    assert "Path=/" in set_cookie
    token = served.token_url.rsplit("=", 1)[1]
    assert len(token) >= 22  # 128 bits in URL-safe base64
    assert token not in set_cookie  # the cookie holds its own secret
    name, value = served.cookie()
    page = httpx.get(served.url + "/", timeout=10, cookies={name: value})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    # nothing from outside the machine: no outside URL in the page, and the browser is told
    assert "//" not in page.text.replace(f"ws://127.0.0.1:{served.port}/ws", ""), page.text
    assert "googleapis" not in page.text
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "font-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    for font in re.findall(r'url\("(/static/fonts/[^"]+)"\)', page.text):
        got = httpx.get(served.url + font, timeout=10, cookies={name: value})
        assert got.status_code == 200 and len(got.content) > 10_000
    assert re.findall(r'url\("(/static/fonts/[^"]+)"\)', page.text)
    # a second serve's cookie name differs: cookies are shared by every port of a host
    assert name.endswith(str(served.port))


def test_without_the_cookie_nothing_is_served(served):
    for path in ("/", "/static/js/textual.js", "/static/css/xterm.css", "/download/x",
                 "/?token=wrong", "/?token="):
        answer = httpx.get(served.url + path, timeout=10)
        assert answer.status_code == 403, path
    name, value = served.cookie()
    answer = httpx.get(served.url + "/", timeout=10, cookies={name: value + "x"})
    assert answer.status_code == 403
    refused = served.refusals(7)
    assert len(refused) == 7
    assert all(line.startswith("raw-tui: serve: refused GET ") for line in refused)
    assert sum("no cookie" in line for line in refused) == 4
    assert sum("wrong token" in line for line in refused) == 2
    assert "wrong" not in " ".join(refused).replace("wrong token", "").replace(
        "wrong cookie", "")  # the query (a token) is never logged


def _foreign_host(served: Served) -> dict[str, str]:
    """DNS rebinding: a hostile name resolved to 127.0.0.1 sends its own Host and Origin."""
    return {**served.cookie_header(), "Host": f"rebind.example:{served.port}",
            "Origin": f"http://rebind.example:{served.port}"}


WEBSOCKETS = {
    "no cookie": lambda s: {"Origin": s.url},
    "wrong cookie": lambda s: {"Origin": s.url, "Cookie": f"raw-tui-{s.port}=guess"},
    "foreign Origin": lambda s: {**s.cookie_header(), "Origin": "http://evil.example"},
    "no Origin": lambda s: s.cookie_header(),
    "a localhost Origin on 127.0.0.1": lambda s: {
        **s.cookie_header(), "Origin": f"http://localhost:{s.port}"},
    "foreign Host": _foreign_host,
    "the token instead of a cookie": lambda s: {"Origin": s.url},
}


async def _upgrade(served: Served, headers: dict[str, str], query: str = "") -> int:
    """The status a websocket upgrade to /ws gets (101 when a tab was opened)."""
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(f"ws://127.0.0.1:{served.port}/ws?width=80&height=24"
                                       f"{query}", headers=headers) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as err:
            return err.status


def test_a_refused_websocket_gets_403_and_changes_nothing(served):
    token = served.token_url.rsplit("=", 1)[1]
    for why, headers in WEBSOCKETS.items():
        query = f"&token={token}" if why.startswith("the token") else ""
        status = asyncio.run(_upgrade(served, headers(served), query))
        assert status == 403, why
        assert tab_apps(served.place) == [], why  # no tab's app was started
    assert len(served.refusals(len(WEBSOCKETS))) == len(WEBSOCKETS)
    # the refused websockets typed nothing: the hosted session saw no prompt and no client
    events = _history(served)
    assert any(e["type"] == "session_start" for e in events)
    assert not [e for e in events if e["type"] in ("user_message", "approval_decision")]
    # the page itself with a foreign Host (a rebinding page reading it) is refused too
    name, value = served.cookie()
    answer = httpx.get(served.url + "/", timeout=10, cookies={name: value},
                       headers={"Host": f"rebind.example:{served.port}"})
    assert answer.status_code == 403
    # and the same cookie from the served origin opens a tab
    assert asyncio.run(_upgrade(served, served.ws_headers())) == 101


def _other_user() -> str:
    try:
        pwd.getpwnam(OTHER_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", OTHER_USER], check=True, capture_output=True)
    return OTHER_USER


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("useradd")
                    or not shutil.which("runuser") or not shutil.which("curl"),
                    reason="needs root, useradd, runuser and curl")
def test_another_user_is_refused(served):
    user = _other_user()

    def curl(*args: str) -> str:
        done = subprocess.run(["runuser", "-u", user, "--", "curl", "-s", "-o", "/dev/null",
                               "-w", "%{http_code}", "--max-time", "10", *args],
                              capture_output=True, text=True, timeout=30)
        return done.stdout

    assert curl(served.url + "/") == "403"
    assert curl("-H", "Connection: Upgrade", "-H", "Upgrade: websocket",
                "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZQ==",
                "-H", f"Origin: {served.url}", served.url + "/ws") == "403"
    assert tab_apps(served.place) == []
    # the token is on serve's own output only: in no process's command line or environment
    token = served.token_url.rsplit("=", 1)[1].encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            for name in ("cmdline", "environ"):
                try:
                    assert token not in (entry / name).read_bytes(), entry
                except OSError:
                    continue


def test_an_odd_upgrade_still_needs_the_origin_and_the_token_never_redirects_away(served):
    """Review findings: `Upgrade: websocket, foo` (or any request to /ws) without an Origin is
    refused before any handler runs; the token's redirect stays on this machine even when
    the path starts `//`."""
    for headers in ({"Upgrade": "websocket, foo", "Connection": "Upgrade"},
                    {"Connection": "keep-alive, Upgrade"}, {}):
        answer = httpx.get(served.url + "/ws", timeout=10,
                           headers={**served.cookie_header(), **headers})
        assert answer.status_code == 403, headers
    assert tab_apps(served.place) == []
    token = served.token_url.rsplit("=", 1)[1]
    answer = httpx.get(f"{served.url}//evil.test/?token={token}", timeout=10,
                       follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith("/") and \
        not answer.headers["location"].startswith("//")

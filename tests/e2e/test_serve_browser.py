"""`raw-tui serve` in a real browser: Debian's headless Chromium driven by Playwright types a
prompt into the page and approves the demo's write with `a`; the file on disk proves the key
went through the gate. The page draws on a canvas, so what it shows is read from the saved
history (`sessions show`) and kept as a screenshot.

Skipped when Playwright or /usr/bin/chromium is missing (`scripts/test` installs both).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.serve_kit import served  # the served demo in an isolated place
from tests.e2e.terminal_kit import RAW_TUI, demo_note, isolated_env, place

__all__ = ["place", "served"]

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no chromium installed")

def _stored_events(place: Path) -> list[dict]:
    env = isolated_env(place)
    listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=env, cwd=place / "w",
                             capture_output=True, text=True, timeout=60)
    rows = listing.stdout.splitlines()
    if not rows:
        return []
    shown = subprocess.run([str(RAW_TUI), "sessions", "show", rows[0].split()[0]], env=env,
                           cwd=place / "w", capture_output=True, text=True, timeout=60)
    return [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]


def _tab_attached(place: Path) -> bool:
    """The tab's app is attached to the session `serve` hosts (a client of its socket)."""
    from raw_tui.host.paths import probe

    env = isolated_env(place)
    listing = subprocess.run([str(RAW_TUI), "sessions", "list"], env=env, cwd=place / "w",
                             capture_output=True, text=True, timeout=60)
    rows = listing.stdout.splitlines()
    if not rows:
        return False
    socket = Path(env["XDG_RUNTIME_DIR"]) / "raw-tui" / f"{rows[0].split()[0]}.sock"
    status = probe(socket)
    return status is not None and status.clients >= 1


def _wait_for(what: str, check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def test_a_browser_types_a_prompt_and_approves_a_write(served, tmp_path):
    place = served.place
    note = demo_note(isolated_env(place))
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            outside: list[str] = []  # every request the page makes that leaves the machine
            page.on("request", lambda r: None if r.url.startswith(served.url + "/")
                    or r.url.startswith(served.url.replace("http", "ws") + "/")
                    else outside.append(r.url))
            page.goto(served.token_url)  # the cookie, then the page without the token
            assert page.url == served.url + "/"
            page.wait_for_selector("canvas", timeout=30000)
            # the tab's own app process starts and attaches to the session serve hosts
            _wait_for("the session to start", lambda: any(
                e["type"] == "session_start" for e in _stored_events(place)))
            _wait_for("the tab to attach", lambda: _tab_attached(place))
            page.focus("textarea.xterm-helper-textarea")  # the terminal's keyboard input
            page.keyboard.type("hello from chromium")
            page.keyboard.press("Enter")
            request = _wait_for("the approval request", lambda: [
                e for e in _stored_events(place) if e["type"] == "approval_request"])
            assert request[0]["name"] == "write_file"
            assert not note.exists()
            shot = tmp_path / "serve-approval.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000  # the drawn modal, not a blank page
            page.keyboard.press("a")
            _wait_for("the approved write", note.exists)
            decisions = [e for e in _stored_events(place) if e["type"] == "approval_decision"]
            assert decisions and decisions[0]["allow"] is True
            prompts = [e["text"] for e in _stored_events(place) if e["type"] == "user_message"]
            assert prompts[0] == "hello from chromium"
            assert outside == []
            assert served.refusals() == []
        finally:
            browser.close()


def test_alt_enter_in_the_browser_is_a_newline_and_enter_sends(served):
    """xterm.js sends ESC CR for Alt+Enter: a newline in the composer (raw-tui's browser
    driver reads it, raw_tui/ui/browser_driver.py); Enter then sends both lines."""
    place = served.place
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.goto(served.token_url)  # the cookie, then the page without the token
            page.wait_for_selector("canvas", timeout=30000)
            _wait_for("the session to start", lambda: any(
                e["type"] == "session_start" for e in _stored_events(place)))
            _wait_for("the tab to attach", lambda: _tab_attached(place))
            page.focus("textarea.xterm-helper-textarea")
            page.keyboard.type("first line")
            page.keyboard.press("Alt+Enter")
            page.keyboard.type("second line")
            time.sleep(1.0)
            assert not [e for e in _stored_events(place) if e["type"] == "user_message"]
            page.keyboard.press("Enter")
            prompts = _wait_for("the prompt", lambda: [
                e["text"] for e in _stored_events(place) if e["type"] == "user_message"])
            assert prompts[0] == "first line\nsecond line"
        finally:
            browser.close()

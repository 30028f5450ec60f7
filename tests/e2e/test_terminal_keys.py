"""The keyboard through real terminal bytes (tests/e2e/terminal_kit.py): what xterm, xterm
with modifyOtherKeys, kitty-protocol terminals, the browser's xterm.js and tmux send for every
key of the README's key table reads as that key; the composer's newline in every form a
terminal sends for Alt+Enter and Shift+Enter; keys typed before the first frame (before the
process even started, while it starts, on the first run's welcome) all land, in order."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from raw_tui.ui.binding_ids import KEY_TABLE, textual_key
from tests.e2e.terminal_kit import (EXITED, KEY_BYTES, NEWLINE_KEYS, RAW_TUI, TMUX_NAMES, Pty, Tmux,
                                    composer_lines, isolated_env, needs_tmux, place, quit_app,
                                    raw_tui_cli, send_bytes, status_line,
                                    wait_for_terminal_taken)

__all__ = ["place"]

REPO = Path(__file__).resolve().parents[2]
PROBE = [sys.executable, "-m", "tests.e2e.key_probe"]
END = b"\x1f"  # Ctrl+_ ends the probe


def _lines(out: Path) -> list[str]:
    return out.read_text().split() if out.exists() else []


def _probe_keys(write, out: Path, keys: dict[str, object]) -> dict[str, str]:
    """Send each key (one at a time, each read before the next); what the probe read."""
    read: dict[str, str] = {}
    for name, data in keys.items():
        before = len(_lines(out))
        write(data)
        deadline = time.monotonic() + 10
        while len(_lines(out)) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        got = _lines(out)[before:]
        read[name] = " ".join(got)
    return read


def test_the_kit_sends_every_key_of_the_readmes_table():
    """xterm's legacy form and xterm.js have no Shift+Enter apart from Enter."""
    table = {textual_key(written) for written, _ in KEY_TABLE}
    for terminal, keys in KEY_BYTES.items():
        plain = {"shift+enter"} if terminal in ("xterm", "browser") else set()
        assert table - plain <= set(keys), terminal
    assert table <= set(TMUX_NAMES)


@pytest.mark.parametrize("terminal", sorted(KEY_BYTES))
def test_every_key_of_the_table_reads_as_that_key(place, terminal):
    out = place / "keys"
    with Pty([*PROBE, str(out)], cwd=REPO, env=isolated_env(place)) as pty:
        pty.read_until(b"key probe ready", "the probe drew nothing")
        read = _probe_keys(pty.write, out, KEY_BYTES[terminal])
        pty.write(END)
    assert read == {name: name for name in KEY_BYTES[terminal]}


@needs_tmux
def test_tmux_sends_every_key_of_the_table_as_that_key(place):
    """tmux (3.3 and later) sends Shift+Enter and Ctrl+Enter in an extended form once the
    application asks for modifyOtherKeys, which raw-tui's driver does; without that request
    tmux sends Shift+Enter as Enter (or, through send-keys, as its name)."""
    out = place / "keys"
    tmux = Tmux(env=isolated_env(place))
    try:
        tmux.start([*PROBE, str(out)], cwd=REPO)
        tmux.wait_for("key probe ready")
        read = _probe_keys(lambda name: tmux.keys(name), out, TMUX_NAMES)
    finally:
        tmux.kill()
    assert read == {name: name for name in TMUX_NAMES}


# the real UI ---------------------------------------------------------------------------------
NEWLINE_FORMS = [
    *((f"{terminal}:{key}", KEY_BYTES[terminal][key]) for terminal in sorted(KEY_BYTES)
      for key in NEWLINE_KEYS if key in KEY_BYTES[terminal]),
]


def _ui(place, *, welcome: bool = False, width: int = 80, height: int = 24) -> Tmux:
    env = isolated_env(place)
    if welcome:
        env.pop("RAW_TUI_WELCOME", None)
    return Tmux(env=env, width=width, height=height)


def _close(tmux: Tmux) -> None:
    """Quit (Ctrl+Q ends the session and its host), then stop tmux."""
    try:
        tmux.keys("C-q")
        tmux.wait_for(lambda s: EXITED in s)
    finally:
        tmux.kill()


def _idle(tmux: Tmux) -> str:
    return tmux.wait_for(lambda s: "idle" in status_line(s))


@needs_tmux
def test_alt_and_shift_enter_add_a_newline_in_every_form_terminals_send(place):
    tmux = _ui(place, height=40)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        _idle(tmux)
        expected: list[str] = []
        sends = [(f"{form}", lambda data=data: send_bytes(tmux, data))
                 for form, data in NEWLINE_FORMS]
        sends += [(f"tmux:{name}", lambda name=name: tmux.keys(name))  # tmux's own encoding
                  for name in ("M-Enter", "S-Enter", "C-j")]
        for index, (form, send) in enumerate(sends):
            tmux.type(f"L{index}")
            send()
            tmux.type(f"M{index}")
            expected += [f"L{index}", f"M{index}"]
            tmux.wait_for(lambda s: composer_lines(s)[-2:] == expected[-2:], timeout=10)
            tmux.keys("C-j")  # the next pair on a line of its own
        screen = _idle(tmux)
        assert "Approve" not in screen  # nothing was sent
        send_bytes(tmux, b"\r")  # Enter alone sends
        tmux.wait_for("Approve write_file?")
        tmux.keys("d")
        assert _first_title(place, tmux.env)  # the saved prompt: every line, in order
        shown = raw_tui_cli(tmux.env, place / "w", "sessions", "show",
                            _first_title(place, tmux.env).split()[0]).stdout
        assert "\\n".join(expected) in shown
    finally:
        _close(tmux)


def _first_title(place: Path, env: dict[str, str]) -> str:
    rows = raw_tui_cli(env, place / "w", "sessions", "list").stdout.splitlines()
    return rows[0] if rows else ""


@needs_tmux
def test_a_prompt_typed_before_the_process_started_is_sent_whole(place):
    """The keys reach the terminal before raw-tui runs: the kernel's cooked mode holds them
    (Enter read as a newline there); they are the composer's, and Enter sends."""
    tmux = _ui(place)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.type("before the start")
        tmux.keys("Enter")
        tmux.wait_for("Approve write_file?")
        tmux.keys("d")
        assert "before the start" in _first_title(place, tmux.env)
    finally:
        _close(tmux)


@needs_tmux
@pytest.mark.parametrize("delay", [0.0, 0.05, 0.15, 0.3])
def test_keys_typed_while_the_ui_starts_all_reach_the_composer(place, delay):
    tmux = _ui(place)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        wait_for_terminal_taken(tmux)
        time.sleep(delay)
        tmux.type("abc")
        tmux.type(" def")  # a second read, while the first frame is being drawn
        screen = tmux.wait_for(lambda s: "idle" in status_line(s)
                               and composer_lines(s) == ["abc def"], timeout=30)
        assert "Message ·" not in screen
    finally:
        _close(tmux)


@needs_tmux
def test_the_first_runs_welcome_takes_no_key_at_typing_or_paste_speed(place):
    tmux = _ui(place, welcome=True)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for("Welcome to raw-tui")
        for letter in "hello":  # typing speed
            tmux.type(letter)
            time.sleep(0.08)
        tmux.wait_for(lambda s: composer_lines(s) == ["hello"], timeout=10)
        send_bytes(tmux, b"\x7f" * 5)
        tmux.wait_for(lambda s: composer_lines(s) == [""] or "Message ·" in s, timeout=10)
    finally:
        _close(tmux)
    # a paste burst as the welcome shows: the whole prompt and its Enter
    tmux = _ui(place, welcome=True)
    (Path(tmux.env["XDG_STATE_HOME"]) / "raw-tui" / "ui.json").unlink(missing_ok=True)
    try:
        tmux.start([str(RAW_TUI)], cwd=place / "w")
        tmux.wait_for("Welcome to raw-tui")
        tmux.type("pasted at once\r")
        tmux.wait_for("Approve write_file?")
        tmux.keys("d")
        assert "pasted at once" in _first_title(place, tmux.env)
    finally:
        _close(tmux)

"""The installed `raw-tui` on a real terminal, for the end-to-end tests: a tmux session
(`Tmux`: keys in, `capture-pane` out, polled), a bare pseudo-terminal (`Pty`: the bytes the
UI writes), an isolated place to run in (the `place` fixture, `isolated_env`) and what the
tests read on the screen."""

from __future__ import annotations

import fcntl
import itertools
import os
import pty
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Callable

import pytest

RAW_TUI = Path(sys.executable).parent / "raw-tui"
STEP_TIMEOUT = 30.0  # a loaded 2-core CI machine: generous, since we poll
EXITED = "raw-tui exited with "
_names = itertools.count()

# `pytestmark = needs_tmux` in a module whose tests all run tmux
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def flat(text: str) -> str:
    """Screen text with line breaks and runs of blanks as single spaces (wrapped words)."""
    return " ".join(text.split())


class Tmux:
    """One detached tmux session on a private server socket (no user config)."""

    def __init__(self, *, width: int = 80, height: int = 24, env: dict[str, str]) -> None:
        self.socket = f"raw-tui-test-{os.getpid()}-{next(_names)}"
        self.name = "ui"
        self.width, self.height = width, height
        self.env = env

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                              env=self.env, capture_output=True, text=True, check=check,
                              timeout=20)

    def start(self, argv: list[str], *, cwd: Path) -> None:
        """Run argv in the pane; when it exits the pane says `raw-tui exited with CODE`."""
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items())
                           if k.startswith(("XDG_", "NO_COLOR", "TEXTUAL", "RAW_TUI_")))
        command = f"env {exports} {shlex.join(argv)}; echo \"{EXITED}$?\"; sleep 600"
        self._tmux("new-session", "-d", "-s", self.name, "-x", str(self.width),
                   "-y", str(self.height), "-c", str(cwd), command)

    def keys(self, *keys: str) -> None:
        """Key names as tmux knows them (Enter, Escape, C-q, Down, F2)."""
        self._tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        """Literal text, in one burst (as a fast typist or a paste without brackets)."""
        self._tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self, *, colors: bool = False) -> str:
        """The pane's text; with `colors`, with the SGR of its cells too (`capture-pane -e`)."""
        return self._tmux("capture-pane", "-p", *(["-e"] if colors else []), "-t",
                          self.name).stdout

    def wait_for(self, what: str | Callable[[str], bool], timeout: float = STEP_TIMEOUT) -> str:
        """Poll the screen until `what` (text, compared with blanks flattened, or a
        predicate on the raw screen) shows; fail with the last screen otherwise."""
        check = what if callable(what) else (lambda screen: flat(what) in flat(screen))
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what!r}; the screen:\n{screen}")

    def kill(self) -> None:
        """Stop the server and remove its socket file (tmux leaves it behind)."""
        self._tmux("kill-server", check=False)
        folder = Path(self.env.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (folder / self.socket).unlink(missing_ok=True)


def isolated_env(root: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    for key in ("NO_COLOR", "TMUX", "TMUX_PANE"):
        env.pop(key, None)
    for var, sub in (("XDG_CONFIG_HOME", "cf"), ("XDG_STATE_HOME", "st"),
                     ("XDG_DATA_HOME", "da"), ("XDG_CACHE_HOME", "ca")):
        (root / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(root / sub)
    env.update(extra)
    return env


@pytest.fixture
def place():
    """A short temporary root (paths must fit in an 80-column modal): cwd and XDG dirs."""
    root = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))
    (root / "w").mkdir()
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def raw_tui_cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(RAW_TUI), *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def status_line(screen: str) -> str:
    lines = [line for line in screen.split("\n") if line.strip()]
    return lines[-1] if lines else ""


def demo_note(env: dict[str, str]) -> Path:
    """Where the demo's write_file writes: its scratch dir under $XDG_STATE_HOME."""
    return Path(env["XDG_STATE_HOME"]) / "raw-tui" / "demo-scratch" / "note.txt"


def quit_app(tmux: Tmux) -> str:
    tmux.keys("C-q")
    screen = tmux.wait_for(EXITED)
    assert f"{EXITED}0" in screen, screen
    return screen


class Pty:
    """A command on a pseudo-terminal of its own (`size` columns × rows, a new session);
    `fd` is the terminal's side, where what it writes is read and keys are written."""

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str],
                 size: tuple[int, int] = (80, 24)) -> None:
        columns, rows = size
        self.fd, child_fd = pty.openpty()
        fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=child_fd, stdout=child_fd,
                                     stderr=child_fd, start_new_session=True, close_fds=True)
        os.close(child_fd)

    def read_for(self, seconds: float) -> bytes:
        """Every byte written in the next `seconds` (less if the terminal closes)."""
        out = bytearray()
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
        return bytes(out)

    def read_until(self, needle: bytes, failure: str, timeout: float = 60) -> None:
        """Read until `needle` was written; fail with `failure` and the last bytes."""
        seen = bytearray()
        deadline = time.monotonic() + timeout
        while needle not in seen:
            assert time.monotonic() < deadline, f"{failure}: {bytes(seen[-500:])!r}"
            seen += self.read_for(0.5)

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        """SIGTERM to the command's process group (SIGKILL after 15 s), the terminal closed."""
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.fd)

    def __enter__(self) -> "Pty":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# keys as bytes ---------------------------------------------------------------------------------
# What each kind of terminal sends for the keys of the README's key table, byte for byte:
# `xterm` is the legacy encoding (xterm, VTE, most terminals over SSH); `xterm_mok` xterm with
# modifyOtherKeys on (raw-tui asks for mode 1); `kitty` the kitty keyboard protocol with the
# flags Textual asks for (disambiguate, all keys as escape codes, associated text); `browser`
# xterm.js through `serve`. tmux is measured, not written down: `Tmux.keys` sends tmux's
# own key names and tmux encodes them (tests/e2e/test_terminal_keys.py).
def _kitty(code: int, modifiers: int = 1, text: str | None = None) -> bytes:
    mods = "" if modifiers == 1 and text is None else str(modifiers)
    tail = f";{ord(text)}" if text else ""
    return f"\x1b[{code}{';' + mods if mods or tail else ''}{tail}u".encode()


LEGACY: dict[str, bytes] = {
    "enter": b"\r", "alt+enter": b"\x1b\r", "ctrl+j": b"\n", "escape": b"\x1b",
    "tab": b"\t", "shift+tab": b"\x1b[Z", "up": b"\x1b[A", "down": b"\x1b[B",
    "right": b"\x1b[C", "left": b"\x1b[D", "f1": b"\x1bOP", "f2": b"\x1bOQ",
    "ctrl+c": b"\x03", "ctrl+s": b"\x13", "ctrl+p": b"\x10", "ctrl+t": b"\x14",
    "ctrl+r": b"\x12", "ctrl+f": b"\x06", "ctrl+o": b"\x0f", "ctrl+q": b"\x11",
    "ctrl+backslash": b"\x1c", "ctrl+l": b"\x0c", "a": b"a", "d": b"d", "c": b"c", "e": b"e", "n": b"n",
    "u": b"u", "o": b"o", "k": b"k",
    "N": b"N", "slash": b"/",
}
KEY_BYTES: dict[str, dict[str, bytes]] = {
    "xterm": dict(LEGACY),
    "xterm_mok": {**LEGACY, "shift+enter": b"\x1b[27;2;13~", "alt+enter": b"\x1b[27;3;13~",
                  "ctrl+enter": b"\x1b[27;5;13~"},
    "kitty": {
        "enter": _kitty(13), "shift+enter": _kitty(13, 2), "alt+enter": _kitty(13, 3),
        "ctrl+j": _kitty(106, 5), "escape": _kitty(27), "tab": _kitty(9),
        "shift+tab": _kitty(9, 2), "up": b"\x1b[A", "down": b"\x1b[B", "right": b"\x1b[C",
        "left": b"\x1b[D", "f1": b"\x1b[P", "f2": b"\x1b[Q", "ctrl+c": _kitty(99, 5),
        "ctrl+s": _kitty(115, 5), "ctrl+p": _kitty(112, 5), "ctrl+t": _kitty(116, 5),
        "ctrl+r": _kitty(114, 5), "ctrl+f": _kitty(102, 5), "ctrl+o": _kitty(111, 5),
        "ctrl+q": _kitty(113, 5), "ctrl+backslash": _kitty(92, 5), "ctrl+l": _kitty(108, 5),
        **{k: _kitty(ord(k), 1, k) for k in "adcenuok"}, "N": _kitty(110, 2, "N"),
        "slash": _kitty(47, 1, "/"),
    },
    "browser": dict(LEGACY),  # xterm.js: Shift+Enter is a plain CR there
}
# tmux's names for the same keys (send-keys), where tmux has one
TMUX_NAMES: dict[str, str] = {
    "enter": "Enter", "alt+enter": "M-Enter", "shift+enter": "S-Enter", "ctrl+j": "C-j",
    "escape": "Escape", "tab": "Tab", "shift+tab": "BTab", "up": "Up", "down": "Down",
    "right": "Right", "left": "Left", "f1": "F1", "f2": "F2", "ctrl+c": "C-c", "ctrl+s": "C-s",
    "ctrl+p": "C-p", "ctrl+t": "C-t", "ctrl+r": "C-r", "ctrl+f": "C-f", "ctrl+o": "C-o",
    "ctrl+q": "C-q", "ctrl+backslash": "C-\\", "ctrl+l": "C-l", "a": "a", "d": "d", "c": "c", "e": "e",
    "n": "n", "u": "u", "o": "o", "k": "k", "N": "N", "slash": "/",
}
NEWLINE_KEYS = ("alt+enter", "shift+enter", "ctrl+j")  # the composer's newline, everywhere


def send_bytes(tmux: Tmux, data: bytes) -> None:
    """Exactly these bytes into the pane's terminal (`send-keys -H`), as a terminal writes
    them."""
    tmux.keys("-H", *(f"{b:02x}" for b in data))


def pane_tty(tmux: Tmux) -> str:
    return tmux._tmux("display", "-p", "-t", tmux.name, "#{pane_tty}").stdout.strip()


def wait_for_terminal_taken(tmux: Tmux, timeout: float = STEP_TIMEOUT) -> float:
    """Poll the pane's terminal until raw-tui's first terminal change (Enter kept as CR,
    ui/typeahead.py) shows: the process runs, the first frame is still to come. The seconds
    it took."""
    tty = pane_tty(tmux)
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        out = subprocess.run(["stty", "-F", tty, "-a"], capture_output=True, text=True).stdout
        if "-icrnl" in out.split():
            return time.monotonic() - start
        time.sleep(0.002)
    raise AssertionError("raw-tui never took its terminal")


def composer_lines(screen: str) -> list[str]:
    """The text lines of the composer (the box above the status line)."""
    lines = screen.rstrip("\n").split("\n")
    bottom = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    top = max(i for i, line in enumerate(lines[:bottom]) if line.startswith("╭"))
    scrollbar = "▁▂▃▄▅▆▇█▔ "
    return [line.strip("│ ").rstrip(scrollbar) for line in lines[top + 1:bottom]]


def prompt_demo(tmux: Tmux, text: str, *, until: str = "Approve write_file?") -> str:
    """Wait for the session to be idle, send `text` as a prompt, and wait for `until` (the
    built-in demo's first approval); the screen then."""
    tmux.wait_for(lambda s: "idle" in status_line(s))
    tmux.type(text)
    tmux.keys("Enter")
    return tmux.wait_for(until)

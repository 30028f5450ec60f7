"""A terminal at the end of a slow link, for the frame tests and the slow-link benchmark.

`Terminal` runs the real `raw-tui` on a pty and reads what it writes at a chosen rate (bytes a
second; None: as fast as it comes) into a `pyte` screen — a terminal emulator — which answers
what a terminal answers (cursor position reports) back through the pty, as xterm or tmux
would, after it has taken in everything written before the question. `streaming_setup` makes
a working directory whose model (a local OpenAI-compatible server) streams a long markdown
reply in small deltas.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path

import pyte

from tests.e2e.terminal_kit import RAW_TUI, isolated_env
from tests.servers import openai_wire
from tests.servers.http_server import ProtocolServer, Reply


class BceScreen(pyte.Screen):
    """A pyte screen that fills a line scrolled in with the pen's background, as xterm,
    VTE, kitty, iTerm2 and tmux do (background color erase; pyte fills it with the default
    one). tests/e2e/test_tmux_scroll_fill.py shows tmux doing it."""

    def index(self) -> None:
        _, bottom = self.margins or pyte.screens.Margins(0, self.lines - 1)
        scrolls = self.cursor.y == bottom
        super().index()
        if scrolls and self.cursor.attrs.bg != "default":
            line = self.buffer[bottom]
            blank = self.default_char._replace(bg=self.cursor.attrs.bg)
            for x in range(self.columns):
                line[x] = blank


class AnsweringScreen(BceScreen):
    """A pyte screen that sends its answers (cursor position, device status) back."""

    def __init__(self, columns: int, lines: int, answer) -> None:
        super().__init__(columns, lines)
        self.answer = answer

    def write_process_input(self, data: str) -> None:
        self.answer(data.encode())


def seen(char) -> tuple:
    """A pyte cell as it looks: its character and attributes, except that a blank without
    underline, strike-through or reverse video shows only its background (its foreground,
    bold and italic draw nothing)."""
    if char.data == " " and not (char.underscore or char.strikethrough or char.reverse):
        return (" ", None, char.bg, None, None, False, False, False, char.blink)
    return tuple(char)


def cells(screen: pyte.Screen) -> list[list[tuple]]:
    """Every cell of a pyte screen as it looks (`seen`)."""
    return [[seen(screen.buffer[y][x]) for x in range(screen.columns)]
            for y in range(screen.lines)]


def differences(a: list[list[tuple]], b: list[list[tuple]]) -> list[str]:
    """Each cell where two screens (`cells`) differ, as `(x,y): a != b`."""
    out = []
    for y, (row_a, row_b) in enumerate(zip(a, b)):
        for x, (cell_a, cell_b) in enumerate(zip(row_a, row_b)):
            if cell_a != cell_b:
                out.append(f"({x},{y}): {cell_a} != {cell_b}")
    return out


def text(screen: pyte.Screen) -> str:
    return "\n".join(screen.display)


class Terminal:
    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str],
                 size: tuple[int, int] = (100, 30), rate: float | None = None) -> None:
        self.columns, self.rows = size
        self.rate = rate
        self.fd, child = pty.openpty()
        self._winsize(child)
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=child, stdout=child,
                                     stderr=child, start_new_session=True, close_fds=True)
        os.close(child)
        self.lock = threading.Lock()
        self.screen = AnsweringScreen(self.columns, self.rows, self.answer)
        self.stream = pyte.ByteStream(self.screen)
        self.tap: list[pyte.ByteStream] = []  # more screens fed from now on
        self.total = 0  # bytes read
        self.closed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _winsize(self, fd: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.columns, 0, 0))

    def answer(self, data: bytes) -> None:
        try:
            os.write(self.fd, data)
        except OSError:
            pass

    def _read(self) -> None:
        started = time.monotonic()
        while not self.closed:
            try:
                chunk = os.read(self.fd, 4096 if self.rate is None else 256)
            except OSError:
                break
            if not chunk:
                break
            with self.lock:
                self.total += len(chunk)
                self.stream.feed(chunk)
                for stream in self.tap:
                    stream.feed(chunk)
            if self.rate is not None:  # the link carries `rate` bytes a second
                due = started + self.total / self.rate
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)

    # -- reading the screen -----------------------------------------------------------------
    def display(self) -> str:
        with self.lock:
            return text(self.screen)

    def wait_for(self, what, timeout: float = 60.0) -> float:
        """Wait until `what` (text, or a predicate on the screen's text) is on screen; the
        time it was first seen."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.display()
            if (what(shown) if callable(what) else what in shown):
                return time.monotonic()
            assert time.monotonic() < deadline, f"not on screen: {what!r}\n{shown}"
            time.sleep(0.005)

    def settle(self, quiet: float = 0.5, timeout: float = 30.0) -> None:
        """Wait until nothing has been written for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        last, since = self.total, time.monotonic()
        while time.monotonic() - since < quiet:
            assert time.monotonic() < deadline, "the terminal never went quiet"
            time.sleep(0.02)
            if self.total != last:
                last, since = self.total, time.monotonic()

    def cells(self) -> list[list[tuple]]:
        with self.lock:
            return cells(self.screen)

    def fresh_screen(self) -> pyte.Screen:
        """A blank screen fed everything written from now on."""
        screen = BceScreen(self.columns, self.rows)
        with self.lock:
            self.tap.append(pyte.ByteStream(screen))
        return screen

    # -- driving it -------------------------------------------------------------------------
    def keys(self, data: bytes) -> None:
        os.write(self.fd, data)

    def show_sidebar(self) -> None:
        """The (empty) sidebar beside the chat (F2; with no panel it is not shown), then Tab
        back to the composer."""
        self.keys(b"\x1bOQ")
        self.wait_for("No panels yet.", 30)
        self.keys(b"\t")

    def resize(self, columns: int, rows: int) -> None:
        with self.lock:
            self.columns, self.rows = columns, rows
            self._winsize(self.fd)
            self.screen.resize(rows, columns)
        os.killpg(self.proc.pid, signal.SIGWINCH)

    def close(self) -> None:
        self.closed = True
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        os.close(self.fd)

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def markdown_reply(size: int = 7551) -> str:
    """A markdown reply of about `size` bytes: headings, paragraphs, lists, code."""
    words = ("the gate asks before a write lands and shows what changes in each file so "
             "nothing happens that you did not allow while the model streams its answer").split()
    parts: list[str] = []
    n = 0
    section = 1
    while sum(len(p) + 2 for p in parts) < size:
        parts.append(f"## Part {section}")
        for _ in range(2):
            sentence = " ".join(words[(n + i) % len(words)] for i in range(40)) + "."
            n += 7
            parts.append(sentence[0].upper() + sentence[1:])
        parts.append("\n".join(f"- item {section}.{i}: **{words[(n + i) % len(words)]}** "
                               f"and `{words[(n + 2 * i) % len(words)]}`" for i in range(4)))
        parts.append("```python\n" + "\n".join(f"step_{section}_{i} = gate(call_{i})"
                                                  for i in range(3)) + "\n```")
        section += 1
    return "\n\n".join(parts)[:size].rstrip() + "\n\nEND-OF-REPLY"


def word_deltas(reply: str, words: int = 4) -> list[str]:
    pieces = reply.split(" ")
    return [" ".join(pieces[i:i + words]) + (" " if i + words < len(pieces) else "")
            for i in range(0, len(pieces), words)]


def streaming_reply(reply: str, delay: float = 0.004, words: int = 4) -> Reply:
    chunks = [openai_wire.sse(openai_wire.chunk({"role": "assistant", "content": ""}))]
    chunks += [openai_wire.sse(openai_wire.chunk({"content": d}))
               for d in word_deltas(reply, words)]
    chunks += openai_wire.ending("stop", (10, 10))
    return Reply(chunks=chunks, chunk_delay=delay)


def streaming_setup(root: Path, server: ProtocolServer) -> tuple[Path, dict[str, str]]:
    """A working directory whose agent talks to `server` (no tools), and its environment."""
    cwd = root / "w"
    cwd.mkdir(parents=True, exist_ok=True)
    config = {"default_agent": "a",
              "models": {"m": {"method": "openai-chat-completions", "base_url": server.url,
                               "model_id": "test-model", "api_key": "k" * 12}},
              "agents": {"a": {"model": "m", "tools": {"use": []}}}}
    (cwd / "raw.json").write_text(json.dumps(config))
    env = isolated_env(root, TERM="xterm-256color", COLORTERM="truecolor", RAW_TUI_WELCOME="off")
    return cwd, env


def raw_tui(*args: str) -> list[str]:
    return [str(RAW_TUI), *args]

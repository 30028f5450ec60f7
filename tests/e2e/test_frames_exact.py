"""Frames are exact: whatever the terminal ends up showing after a streamed reply — read by a
terminal emulator (pyte) from the very bytes raw-tui wrote, on a real pty — equals a full
repaint of the final state (Ctrl+L writes every cell again, into a fresh emulator). At three
sizes, in process and through the session host, on a fast and on a slow link, after
scrolling and after a resize in the middle of the stream."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.e2e.slow_link_kit import (Terminal, cells, differences, markdown_reply, raw_tui,
                                     streaming_reply, streaming_setup)
from tests.servers.http_server import ProtocolServer

REPLY = markdown_reply()
REDRAW = b"\x0c"  # Ctrl+L


@pytest.fixture
def root():
    path = Path(tempfile.mkdtemp(prefix="fx-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def assert_exact(term: Terminal) -> None:
    term.settle(0.6)
    seen = term.cells()
    repaint = term.fresh_screen()
    term.keys(REDRAW)
    term.settle(0.6)
    full = cells(repaint)
    assert any(ch[0] != " " for row in full for ch in row), "Ctrl+L repainted nothing"
    wrong = differences(seen, full)
    assert not wrong, f"{len(wrong)} cells differ from a full repaint: {wrong[:10]}"


def start(root: Path, server: ProtocolServer, size, *, detach: bool, rate=None) -> Terminal:
    cwd, env = streaming_setup(root, server)
    args = ["--cwd", str(cwd)] + ([] if detach else ["--no-detach"])
    term = Terminal(raw_tui(*args), cwd=cwd, env=env, size=size, rate=rate)
    term.wait_for("idle", 90)
    term.settle(0.3)
    return term


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
@pytest.mark.parametrize("detach", [False, True], ids=["in-process", "host"])
def test_a_streamed_reply_leaves_the_screen_a_full_repaint_would(root, size, detach):
    with ProtocolServer(lambda r: streaming_reply(REPLY)) as server:
        with start(root, server, size, detach=detach) as term:
            term.keys(b"go\r")
            term.wait_for("END-OF-REPLY", 90)
            assert_exact(term)
            term.keys(b"\x1b[5~")  # PageUp: the chat scrolls back
            assert_exact(term)


@pytest.mark.parametrize("detach", [False, True], ids=["in-process", "host"])
def test_a_reply_streamed_beside_the_sidebar_is_exact_too(root, detach):
    """The sidebar shown (F2; with no panel it is not): every scroll of the chat moves the
    sidebar's border and text along, and they are written back."""
    with ProtocolServer(lambda r: streaming_reply(REPLY)) as server:
        with start(root, server, (120, 40), detach=detach) as term:
            assert "No panels yet." not in term.display()
            term.show_sidebar()
            term.settle(0.3)
            term.keys(b"go\r")
            term.wait_for("END-OF-REPLY", 90)
            assert "No panels yet." in term.display()
            assert_exact(term)


def test_exact_on_a_slow_link_and_after_a_resize_mid_stream(root):
    with ProtocolServer(lambda r: streaming_reply(REPLY)) as server:
        with start(root, server, (100, 30), detach=False, rate=16000) as term:
            term.keys(b"go\r")
            term.wait_for("Part ", 90)  # the reply is on screen (frames may skip any one part)
            term.resize(90, 28)
            term.wait_for("END-OF-REPLY", 90)
            assert_exact(term)

"""In a real terminal (tmux), a streamed reply leaves what a full repaint leaves, cell for cell
with colors (`capture-pane -e`). The writer scrolls the chat with the terminal's own scroll,
and the lines it brings in take the pen's background (as an erase does): tmux must fill them
so, or the blanks of those lines would show the wrong background."""

from __future__ import annotations

import time

import pyte

from tests.e2e.slow_link_kit import (cells, differences, markdown_reply, streaming_reply,
                                     streaming_setup)
from tests.e2e.terminal_kit import RAW_TUI, Tmux, needs_tmux
from tests.servers.http_server import ProtocolServer

pytestmark = needs_tmux
REPLY = markdown_reply()


def looks(capture: str, size: tuple[int, int]) -> list[list[tuple]]:
    """The cells of a `capture-pane -e` as they look (a blank shows only its background),
    read back by a terminal emulator (pyte)."""
    screen = pyte.Screen(*size)
    stream = pyte.Stream(screen)
    for y, line in enumerate(capture.rstrip("\n").split("\n")):
        stream.feed(f"\x1b[{y + 1};1H{line}")  # a line goes on with the pen the last left
    return cells(screen)


def quiet_screen(tmux: Tmux, quiet: float = 1.0) -> str:
    """The screen with colors once it has not changed for `quiet` seconds."""
    last, since = tmux.screen(colors=True), time.monotonic()
    while time.monotonic() - since < quiet:
        time.sleep(0.1)
        now = tmux.screen(colors=True)
        if now != last:
            last, since = now, time.monotonic()
    return last


def test_a_reply_streamed_in_tmux_leaves_what_a_full_repaint_leaves(tmp_path):
    with ProtocolServer(lambda r: streaming_reply(REPLY, 0.1, 16)) as server:
        cwd, env = streaming_setup(tmp_path, server)
        tmux = Tmux(width=100, height=30, env=env)
        try:
            tmux.start(["env", "TERM=tmux-256color", "COLORTERM=truecolor", str(RAW_TUI),
                        "--cwd", str(cwd), "--no-detach"], cwd=cwd)
            tmux.wait_for("idle", 90)
            # Beside the sidebar (F2): its border and text scroll along too. (With the chat
            # alone, `capture-pane -e` drops erased blanks at a line's end, so a capture
            # cannot show their background: not compared here.)
            tmux.keys("F2")
            tmux.wait_for("No panels yet.", 30)
            tmux.keys("Tab")  # back to the composer
            tmux.type("go")
            tmux.keys("Enter")
            tmux.wait_for("END-OF-REPLY", 120)
            streamed = quiet_screen(tmux)
            assert "48;2;18;18;18" in streamed  # colored blanks: what the fill must match
            tmux.keys("C-l")  # every cell written again
            time.sleep(0.5)
            repainted = quiet_screen(tmux)
            wrong = differences(looks(streamed, (100, 30)), looks(repainted, (100, 30)))
            assert not wrong, "\n".join(wrong[:20]) + "\n" + streamed
        finally:
            tmux.kill()

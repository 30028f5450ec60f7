"""In a real terminal (tmux), a streamed reply leaves what a full repaint leaves, cell for cell
with colors. The writer scrolls the chat with the terminal's own scroll, and the lines it
brings in take the pen's background (as an erase does): tmux must fill them so, or the
blanks of those lines would show the wrong background.

What tmux holds is read as a user sees it: a tmux client attached on a pty draws the whole
window, and a terminal emulator (pyte) reads what it draws. (`capture-pane -e` cannot show
it: it drops the blanks erased at a line's end, and with them their background.)"""

from __future__ import annotations

import time

import pytest

from tests.e2e.slow_link_kit import (Terminal, differences, markdown_reply, streaming_reply,
                                     streaming_setup)
from tests.e2e.terminal_kit import RAW_TUI, Tmux, needs_tmux
from tests.servers.http_server import ProtocolServer

pytestmark = needs_tmux
REPLY = markdown_reply()
CHAT_BACKGROUND = "121212"  # the blanks the scroll's fill must match


def drawn(tmux: Tmux, cwd, env) -> list[list[tuple]]:
    """The window as a tmux client attached on a pty of its size draws it (read by pyte), once
    the raw-tui inside has been quiet for a second."""
    last, since = tmux.screen(colors=True), time.monotonic()
    while time.monotonic() - since < 1.0:
        time.sleep(0.1)
        now = tmux.screen(colors=True)
        if now != last:
            last, since = now, time.monotonic()
    client = Terminal(["tmux", "-L", tmux.socket, "-f", "/dev/null", "attach", "-t", tmux.name],
                      cwd=cwd, env=env, size=(tmux.width, tmux.height))
    try:
        client.wait_for(lambda text: text.strip(), 20)
        client.settle(0.8)
        return client.cells()
    finally:
        client.keys(b"\x02d")  # detach (C-b d) before the client's pty closes
        time.sleep(0.2)
        client.close()


@pytest.mark.parametrize("size,sidebar", [((80, 24), False), ((100, 30), False),
                                          ((120, 40), False), ((100, 30), True)],
                         ids=["80x24", "100x30", "120x40", "100x30-sidebar"])
def test_a_reply_streamed_in_tmux_leaves_what_a_full_repaint_leaves(tmp_path, size, sidebar):
    with ProtocolServer(lambda r: streaming_reply(REPLY, 0.1, 16)) as server:
        cwd, env = streaming_setup(tmp_path, server)
        tmux = Tmux(width=size[0], height=size[1], env=env)
        try:
            tmux.start(["env", "TERM=tmux-256color", "COLORTERM=truecolor", str(RAW_TUI),
                        "--cwd", str(cwd), "--no-detach"], cwd=cwd)
            # the client sees the window whole, at its size, in its own colors
            tmux._tmux("set", "-g", "status", "off")
            tmux._tmux("set", "-g", "window-size", "manual")
            tmux._tmux("set", "-as", "terminal-features", ",xterm-256color:RGB")
            tmux.wait_for("idle", 90)
            if sidebar:  # beside the sidebar (F2): its border and text scroll along too
                tmux.keys("F2")
                tmux.wait_for("No panels yet.", 30)
                tmux.keys("Tab")  # back to the composer
            tmux.type("go")
            tmux.keys("Enter")
            tmux.wait_for("END-OF-REPLY", 120)
            streamed = drawn(tmux, cwd, env)
            assert sum(cell[2] == CHAT_BACKGROUND for row in streamed for cell in row) > 100
            tmux.keys("C-l")  # every cell written again
            time.sleep(0.5)
            repainted = drawn(tmux, cwd, env)
            wrong = differences(streamed, repainted)
            assert not wrong, f"{len(wrong)} cells differ: " + "\n".join(wrong[:20])
        finally:
            tmux.kill()

"""A stdio MCP server started from the UI (tmux, 100×30): its stderr never reaches the
screen (it goes to its log), a server that cannot start is a notice, the call shows the
server beside the tool name, and quitting ends the servers."""

from __future__ import annotations

import time
from pathlib import Path

from raw_tui.mcp.config import alias
from tests.e2e.terminal_kit import (RAW_TUI, Tmux, isolated_env, needs_tmux, place, quit_app,
                                    status_line)
from tests.config_kit import write_config, write_script

from .mcp_kit import alive, fixture_server, kill_quietly

__all__ = ["place"]

pytestmark = needs_tmux


def test_a_stdio_server_never_draws_on_the_screen(place):
    work = place / "w"
    pid_file = place / "fx.pid"
    script = [{"tool_calls": [{"name": alias("fx", "echo"), "arguments": {"value": "stderr"}}]},
              {"tool_calls": [{"name": alias("fx", "echo"), "arguments": {"value": "progress"}}]},
              {"text": "all calls made"}]
    write_script(work, *script)
    servers = {"fx": fixture_server(MCP_PID_FILE=str(pid_file)),
               "bad": fixture_server(MCP_MODE="crash")}
    write_config(work, {"tools": {"use": ["mcp/fx/echo", "mcp/bad/echo"]}},
                 extra={"mcp": {"servers": servers}})
    env = isolated_env(place)
    tmux = Tmux(width=100, height=30, env=env)
    pid = None
    try:
        tmux.start([str(RAW_TUI)], cwd=work)
        tmux.wait_for("MCP server bad could not start")
        pid = int(pid_file.read_text())
        tmux.type("go")
        tmux.keys("Enter")
        screen = tmux.wait_for("all calls made")
        tmux.wait_for(lambda s: "idle" in status_line(s))
        assert "echo · fx" in screen and "wrote to stderr" in screen
        assert "THIS-IS-SERVER-STDERR" not in screen
        log = Path(env["XDG_STATE_HOME"]) / "raw-tui" / "mcp" / "fx.log"
        assert "THIS-IS-SERVER-STDERR during a call" in log.read_text()
        quit_app(tmux)
        deadline = time.monotonic() + 10
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid)
    finally:
        tmux.kill()
        if pid is not None:
            kill_quietly(pid)

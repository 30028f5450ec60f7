"""No byte sequence from outside reaches the terminal as a control (docs/security.md).

The installed `raw-tui` on a bare pseudo-terminal (not tmux, which would parse what it is
sent): every source of text the UI draws emits an OSC 52 (writes the clipboard), an OSC 0
(retitles), `ESC [2J` (clears), a C1 CSI (U+009B) and U+202E (reverses a line). The bytes the
UI writes carry none of them as a control, and each shows, escaped, on the screen. The text
outputs (`run --output text`, `sessions show --output text`, a stderr line) show the bidi
characters escaped too."""

from __future__ import annotations

import json
import os
import socket
import tempfile
import threading
from pathlib import Path

from raw_tui.host import protocol
from tests.e2e.terminal_kit import RAW_TUI, Pty, isolated_env, place
from tests.engine.hooks.hook_kit import write_hook
from tests.config_kit import raw_tui, write_config, write_script, write_tool

__all__ = ["place"]

# each source says SOURCE:HOSTILE, so the test can tell which one reached the screen
HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J\x9b31m\u202eEND"
SHOWN = "\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202eEND"
RAW_CONTROLS = [b"\x1b]52", b"\x1b]0;", b"pwned\x07", b"\x07\x1b[2J", "\x9b".encode(),
                "\u202e".encode()]

PANEL_TOOL = '''
async def handler(args, ctx):
    await ctx.panels.update("board", {"op": "replace", "document": {
        "title": "Board\\u202etitle", "blocks": [{"id": "c", "kind": "checklist", "items": [
            {"id": "a", "label": "item\\u202elabel"}]}]}})
    return "board drawn"
'''


def printf_octal(text: str) -> str:
    return "".join(chr(b) if 0x20 <= b < 0x7F and chr(b) not in "\\%'" else f"\\{b:03o}"
                   for b in text.encode())


def hostile_config(root: Path) -> Path:
    cfg = root / "cfg"
    write_tool(cfg, "echo", f"def handler(args, ctx):\n    return {('result:' + HOSTILE)!r}\n")
    write_tool(cfg, "board", PANEL_TOOL, panels=[{"id": "board", "title": "Board"}])
    write_hook(cfg, "loud", f"print(json.dumps({{'message': {('hook:' + HOSTILE)!r}}}))\n",
               events=[{"name": "PreToolUse", "match": "agent/echo"}])
    bash = f"printf '{printf_octal('bash:' + HOSTILE)}\\n'"
    write_script(
        cfg,
        {"text": f"model:{HOSTILE}", "tool_calls": [{"name": "echo", "arguments": {}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"commands": [{"command": bash}]}}]},
        {"tool_calls": [{"name": "board", "arguments": {}}]},
        {"tool_calls": [{"name": "write_file", "arguments": {"operations": [{
            "mode": "overwrite", "path": f"p{HOSTILE}.txt", "content": "hello\n"}]}}]},
        {"text": "all done here"})
    write_config(cfg, {"tools": {
        "use": ["agent/echo", "agent/board", "builtin/bash", "builtin/write_file"],
        "rules": [{"match": "builtin/write_file", "effect": "ask"}]},
        "hooks": {"use": ["agent/loud"]}})
    return cfg / "raw.json"


def visible_text(out: bytes, size=(200, 60)) -> str:
    """The screen the UI's bytes leave on a terminal (the pyte emulator), one line a row.
    (The UI writes only the cells that change: its text is not in its bytes in order.)"""
    import pyte

    from tests.e2e.slow_link_kit import BceScreen

    screen = BceScreen(*size)
    pyte.ByteStream(screen).feed(out)
    return "\n".join(screen.display)


def assert_no_raw_controls(out: bytes) -> None:
    for raw in RAW_CONTROLS:
        assert raw not in out, f"{raw!r} reached the terminal: {out[out.find(raw) - 80:][:200]!r}"


def test_no_source_reaches_the_terminal_as_a_control(place):  # noqa: F811
    env = isolated_env(place, TERM="xterm-256color", COLORTERM="truecolor",
                       RAW_TUI_WELCOME="off")
    cfg = hostile_config(place)
    out = bytearray()
    with Pty([str(RAW_TUI), "--no-detach", "--config", str(cfg)], cwd=place / "w", env=env,
             size=(200, 60)) as terminal:
        try:
            out += read_until(terminal, b"idle", "no first frame")
            out += terminal.read_for(1.0)
            terminal.write(b"go\r")
            out += read_until(terminal, b"Approve ", "no approval modal")
            out += terminal.read_for(1.0)
            modal = visible_text(bytes(out))
            terminal.write(b"a")
            out += read_until(terminal, b"all done here", "the turn did not end")
            out += terminal.read_for(1.0)
        finally:
            terminal.write(b"\x11")  # Ctrl+Q: the session ends
            out += terminal.read_for(2.0)
    assert_no_raw_controls(bytes(out))
    screen = modal + visible_text(bytes(out))  # the screen with the modal, and at the end
    for source in ("model:", "result:", "hook:", "bash:"):
        assert source + SHOWN in screen, f"{source} not shown escaped"
    target = f"{place / 'w'}/p{SHOWN}.txt"
    assert f"write             p{SHOWN}.txt" in modal  # the path in the modal's effects
    assert f"✔ wrote {target}" in screen  # ... and in its result row
    written = next(name for name in os.listdir(place / "w") if name.startswith("p"))
    assert written == f"p{HOSTILE}.txt"  # approved: the call's own path was written
    assert "Board\\u202etitle" in screen and "item\\u202elabel" in screen  # the panel


def read_until(terminal: Pty, needle: bytes, failure: str, timeout: float = 60) -> bytes:
    """Like `Pty.read_until`, returning what was read."""
    import time

    seen = bytearray()
    deadline = time.monotonic() + timeout
    while needle not in seen:
        assert time.monotonic() < deadline, f"{failure}: {bytes(seen[-500:])!r}"
        seen += terminal.read_for(0.5)
    return bytes(seen)


def test_a_hosts_status_in_the_attach_prompt_is_escaped(place):  # noqa: F811
    """A process answering on the socket directory says what it likes: the prompt that
    offers to attach to it draws that escaped."""
    runtime = Path(tempfile.mkdtemp(prefix="rt-run-", dir="/tmp"))
    os.chmod(runtime, 0o700)
    (runtime / "raw-tui").mkdir(mode=0o700)
    env = isolated_env(place, TERM="xterm-256color", XDG_RUNTIME_DIR=str(runtime),
                       RAW_TUI_WELCOME="off")
    cfg = place / "cfg"
    write_config(cfg, {"tools": {"use": []}})
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # a socket counts only when its host names the session its file is named for
    server.bind(str(runtime / "raw-tui" / f"id{HOSTILE}.sock"))
    server.listen(8)
    status = protocol.Status(version=protocol.PROTOCOL_VERSION, session_id=f"id{HOSTILE}",
                             cwd=str(place / "w"), agent=f"agent{HOSTILE}",
                             state=f"state{HOSTILE}", clients=0, pid=os.getpid())
    stop = threading.Event()

    def answer() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                try:
                    conn.settimeout(2)
                    conn.recv(65536)
                    conn.sendall(protocol.encode(status))
                except OSError:
                    pass

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        with Pty([str(RAW_TUI), "--config", str(cfg / "raw.json")], cwd=place / "w", env=env,
                 size=(200, 24)) as terminal:
            out = read_until(terminal, b"Attach to it?", "no attach prompt")
            out += terminal.read_for(0.5)
    finally:
        stop.set()
        thread.join(5)
        server.close()
        import shutil

        shutil.rmtree(runtime, ignore_errors=True)
    assert_no_raw_controls(out)
    text = out.decode("utf-8", "replace")
    assert f"session id{SHOWN} in this directory is live (state{SHOWN})" in text


def test_text_outputs_show_bidi_characters_escaped(tmp_path):
    cfg = tmp_path / "cfg"
    write_tool(cfg, "echo", "def handler(args, ctx):\n    return 'tool \\u202e said'\n")
    write_config(cfg, {"tools": {"use": ["agent/echo"]}})
    write_script(cfg, {"text": "model \u2066 says", "tool_calls": [{"name": "echo",
                                                                     "arguments": {}}]})
    proc = raw_tui("--config", str(cfg / "raw.json"), "run", "hi", "--output", "text")
    assert proc.returncode == 0, proc.stderr
    assert "\u202e" not in proc.stdout and "\u2066" not in proc.stdout
    assert "model \\u2066 says" in proc.stdout and "tool \\u202e said" in proc.stdout

    session_id = raw_tui("sessions", "list").stdout.split()[0]
    shown = raw_tui("sessions", "show", session_id, "--output", "text").stdout
    assert "\u2066" not in shown and "model \\u2066 says" in shown
    jsonl = raw_tui("sessions", "show", session_id).stdout  # the same JSON, escaped
    assert "\u2066" not in jsonl and "\u202e" not in jsonl
    assert any(json.loads(line).get("text") == "model \u2066 says"
               for line in jsonl.splitlines())

    bad = tmp_path / "raw.json"
    bad.write_text('{"models": {}, "agents": {}, "\\u202eevil": 1}')
    line = raw_tui("--config", str(bad), "config", "list").stderr
    assert "\u202e" not in line and "\\u202eevil" in line

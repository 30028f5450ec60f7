"""Issue 12 UI benchmarks: the UI through the session host's socket against the UI with the
session in process, ratios measured in the same run (the machine is shared and noisy: the
asserts are loose, the printed figures are the result).

- Keystroke to screen: Enter on a prompt, until the chat shows it and the frame is drawn
  (a command to the session and its event back), through the host against in process;
  target ≤ 1.2× and under one frame (16 ms).
- Reattach: `raw-tui attach` to a session of 1,000 messages and 5 panels, process start to
  the first full frame (history and panels drawn), against a fresh start of the UI
  (`--no-detach`, an empty directory); target ≤ 1.5×.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from raw_tui.protocol import commands as cmd
from raw_tui.protocol.bus import UserMessage
from raw_tui.protocol.client import InProcessTransport
from raw_tui.host.client import HostClient
from raw_tui.host.launch import start_host
from raw_tui.host.transport import SocketTransport
from raw_tui.session import open_session
from raw_tui.ui.app import RawApp
from raw_tui.ui.widgets.chat_items import UserMessageView
from tests.bench.test_bench_ui import first_frame_after
from tests.config_kit import end_session_hosts, write_config, write_tool
from tests.host.host_kit import request_of, wait_gone

RAW_TUI = Path(sys.executable).parent / "raw-tui"
PANELS = 5
BOARDS_TOOL = '''
async def handler(args, ctx):
    for i in %r:
        await ctx.panels.update(f"b{i}", {"op": "replace", "document": {
            "title": f"Board {i}",
            "blocks": [{"id": "m", "kind": "markdown", "text": f"Board {i} body"}]}})
    return "boards drawn"
'''
TOOLS = {"boards_a": [0, 1, 2], "boards_b": [3, 4]}  # a tool declares at most 4 panels


def make_config(root: Path, lines: list[dict]) -> SimpleNamespace:
    import json

    cfg = root / "cfg"
    for tool, numbers in TOOLS.items():
        write_tool(cfg, tool, BOARDS_TOOL % (numbers,),
                   panels=[{"id": f"b{i}", "title": f"Board {i}"} for i in numbers])
    (cfg / "script.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    write_config(cfg, {"tools": {"use": [f"agent/{tool}" for tool in TOOLS]}})
    work = root / "w"
    work.mkdir(exist_ok=True)
    return SimpleNamespace(config=str(cfg / "raw.json"), agent=None, model=None,
                           cwd=str(work), cwd_path=work, continue_=False, resume=None)


# keystroke to screen -----------------------------------------------------------------------

ROUNDS = 12


def _state(app) -> str:
    return app.main.status_line.status.state


def _on_frames(app, drawn: dict[str, float]) -> None:
    """Time stamps, taken as each frame is drawn, of the first frame that shows a prompt's
    row in the chat's visible part. Polling for the row from the test's task instead added
    1-7 ms under load: the task runs only when the event loop gets round to it, after the
    handlers queued behind the prompt's event (the instant reply's drawing)."""
    display = app._display  # every frame goes through it (headless: written nowhere)

    def record(screen, update) -> None:
        display(screen, update)
        chat = app.main.chat
        for row in reversed(chat.rows()):
            if isinstance(row, UserMessageView):
                if (row.text not in drawn and row.region.height > 0
                        and chat.region.overlaps(row.region)):
                    drawn[row.text] = time.perf_counter()
                break

    app._display = record


async def _enter_to_screen(app, pilot, text: str, arrived: dict[str, float],
                           drawn: dict[str, float]) -> tuple[float, float]:
    """Enter in the composer (its send action, as the key runs it) until the frame that
    shows the prompt's row in the chat's visible part is drawn: a command to the session and
    its event back, drawn. Returns that time and the part of it until the prompt's event
    was back on the client's bus."""
    composer = app.main.query_one("#composer")
    composer.set_draft(text)
    await pilot.pause()
    start = time.perf_counter()
    composer.action_send()
    while text not in drawn:
        await asyncio.sleep(0)
    elapsed = drawn[text] - start
    while _state(app) != "idle":
        await asyncio.sleep(0.005)
    return elapsed, arrived[text] - start


def _bus_of(client):
    """The bus the client's events arrive on: the session's in process, the socket
    client's through the host."""
    return client.client.bus if isinstance(client, SocketTransport) else client.session.bus


async def _keystrokes(client) -> list[tuple[float, float]]:
    app = RawApp(client)
    times = []
    arrived: dict[str, float] = {}
    drawn: dict[str, float] = {}
    async with app.run_test(size=(100, 30)) as pilot:
        _on_frames(app, drawn)
        while _state(app) != "idle":
            await asyncio.sleep(0.01)
        _bus_of(client).subscribe(lambda event: arrived.setdefault(
            event.text, time.perf_counter()) if isinstance(event, UserMessage) else None)
        for i in range(ROUNDS + 2):
            times.append(await _enter_to_screen(app, pilot, f"prompt {i}", arrived, drawn))
        await client.handle(cmd.Quit())
    return times[2:]


def test_keystroke_to_screen_through_the_host(tmp_path):
    args = make_config(tmp_path, [{"text": "ok"}] * (4 * ROUNDS + 8))

    def opener():
        return open_session(request_of(args), interactive=True)

    async def in_process() -> list[float]:
        session, replay = opener()
        try:
            return await _keystrokes(InProcessTransport.of(session, replay))
        finally:
            session.store.close()

    async def via_host(socket: Path) -> list[float]:
        transport = SocketTransport(lambda: socket, cwd=args.cwd)
        await transport.connect()  # ready: the app opens it before its first frame
        return await _keystrokes(transport)

    local_runs, hosted_runs = [], []
    for _ in range(2):  # alternate, so the machine's load hits both
        local_runs += asyncio.run(in_process())
        host = start_host(request_of(args))
        hosted_runs += asyncio.run(via_host(host.socket))
        wait_gone(host.pid, 20)
    local, local_back = zip(*local_runs)
    hosted, hosted_back = zip(*hosted_runs)
    ratio = statistics.median(hosted) / statistics.median(local)
    print(f"\n[bench] Enter to screen: via host median {statistics.median(hosted) * 1e3:.1f} ms "
          f"(best {min(hosted) * 1e3:.1f}), in process {statistics.median(local) * 1e3:.1f} ms "
          f"(best {min(local) * 1e3:.1f}) → {ratio:.2f}× (target ≤ 1.2×, under 16 ms)")
    print(f"[bench]   of which the prompt's event back on the client's bus: via host median "
          f"{statistics.median(hosted_back) * 1e3:.1f} ms (best {min(hosted_back) * 1e3:.1f}), "
          f"in process {statistics.median(local_back) * 1e3:.1f} ms "
          f"(best {min(local_back) * 1e3:.1f}); the rest is drawing the row")
    assert ratio < 1.2 * 2


# reattach ----------------------------------------------------------------------------------

MESSAGES = 1000


async def _fill(path: Path, turns: int) -> None:
    client = await HostClient.connect(path)
    await client.open()
    for i in range(turns):
        done = asyncio.Event()
        unsubscribe = client.bus.subscribe(
            lambda e, d=done: d.set() if type(e).__name__ == "RunEnd" else None)
        assert (await client.handle(cmd.Prompt(text=f"message {i} " + "x" * 60))).ok
        await asyncio.wait_for(done.wait(), 30)
        unsubscribe()
    await client.close()


def test_reattach_1000_messages_and_5_panels_against_a_fresh_start():
    root = Path(tempfile.mkdtemp(prefix="rt-bench-"))
    env = dict(os.environ, TERM="xterm-256color")
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[var] = str(root / var.lower())
    saved = {k: os.environ.get(k) for k in env if k.startswith("XDG_")}
    os.environ.update({k: v for k, v in env.items() if k.startswith("XDG_")})
    try:
        turns = MESSAGES // 2
        lines = [{"text": "boards", "tool_calls": [{"name": tool, "arguments": {}}
                                                   for tool in TOOLS]}, {"text": "drawn"}]
        lines += [{"text": f"answer {i} with **markdown** and `code`"} for i in range(turns)]
        args = make_config(root, lines)
        host = start_host(request_of(args))
        asyncio.run(_fill(host.socket, turns + 1))
        fresh_dir = root / "fresh"
        fresh_dir.mkdir()
        attach, fresh = [], []
        argv_fresh = [str(RAW_TUI), "--no-detach", "--config", args.config]
        first_frame_after([str(RAW_TUI), "attach", host.session_id], args.cwd_path, env)
        first_frame_after(argv_fresh, fresh_dir, env)  # warm
        for _ in range(3):
            attach.append(first_frame_after([str(RAW_TUI), "attach", host.session_id],
                                            args.cwd_path, env)[-1])
            fresh.append(first_frame_after(argv_fresh, fresh_dir, env)[-1])
        os.kill(host.pid, signal.SIGTERM)
        wait_gone(host.pid, 20)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        end_session_hosts(os.environ.get("RAW_TUI_TEST_RUN", ""))
        shutil.rmtree(root, ignore_errors=True)
    ratio = min(attach) / min(fresh)
    print(f"\n[bench] reattach ({MESSAGES} messages, {PANELS} panels) to the first full "
          f"frame {min(attach):.2f} s, fresh start (--no-detach) {min(fresh):.2f} s → "
          f"{ratio:.2f}× (target ≤ 1.5×)")
    assert ratio < 1.5 * 2

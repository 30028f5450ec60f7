"""Reload between turns: watchfiles on hook folders and the config file."""

from __future__ import annotations

import asyncio
import json
import sys

from hook_kit import load, write_hook
from raw_tui.protocol.bus import HooksReload
from raw_tui.hooks import HookDispatcher, HookWatcher


async def eventually(check, timeout=10.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def script(text: str) -> str:
    return f"#!{sys.executable}\nimport json\nprint(json.dumps({{'message': {text!r}}}))\n"


async def message(dispatcher) -> str:
    [receipt] = await dispatcher.stop("t", {"status": "completed"})
    return receipt.message


async def start(tmp_path, bus, use):
    config = tmp_path / "raw.json"
    config.write_text(json.dumps({"use": use}))

    def reloader():
        return load(tmp_path, json.loads(config.read_text())["use"])

    dispatcher = HookDispatcher(reloader(), bus, cwd=str(tmp_path))
    watcher = HookWatcher(reloader, dispatcher=dispatcher, bus=bus, config_file=config)
    watcher.start()
    await asyncio.wait_for(watcher.ready.wait(), 5)
    await asyncio.sleep(0.3)  # let inotify register
    return config, dispatcher, watcher


async def test_change_becomes_pending_and_swaps_in_at_take(tmp_path, bus, recorder):
    folder = write_hook(tmp_path, "h", "print(json.dumps({'message': 'v1'}))", events=["Stop"])
    _, dispatcher, watcher = await start(tmp_path, bus, ["agent/h"])
    try:
        (folder / "hook.py").write_text(script("v2"))
        await eventually(lambda: watcher.pending is not None)
        assert await message(dispatcher) == "v1"  # the running turn keeps its version
        old = dispatcher.hookset
        taken = watcher.take_pending()
        assert taken is dispatcher.hookset and taken is not old
        assert await message(dispatcher) == "v2"
        reloads = [e for e in recorder.events if isinstance(e, HooksReload)]
        assert reloads == [HooksReload(ok=True, message="hooks reloaded: agent/h")]
        assert watcher.take_pending() is None
    finally:
        await watcher.stop()
        dispatcher.hookset.close()


async def test_invalid_change_keeps_the_last_good_version(tmp_path, bus, recorder):
    folder = write_hook(tmp_path, "h", "print(json.dumps({'message': 'v1'}))", events=["Stop"])
    _, dispatcher, watcher = await start(tmp_path, bus, ["agent/h"])
    try:
        (folder / "hook.json").write_text('{"protocol_version": 2, "name": "h", "events": []}')
        await eventually(lambda: any(isinstance(e, HooksReload) for e in recorder.events))
        [reload] = [e for e in recorder.events if isinstance(e, HooksReload)]
        assert reload.ok is False
        assert "hooks/h/hook.json" in reload.message and "keeping the last good version" in reload.message
        assert watcher.pending is None and watcher.take_pending() is None
        assert await message(dispatcher) == "v1"
    finally:
        await watcher.stop()
        dispatcher.hookset.close()


async def test_config_change_selects_a_new_hook_and_watches_it(tmp_path, bus, recorder):
    write_hook(tmp_path, "a", "print(json.dumps({'message': 'a'}))", events=["Stop"])
    b = write_hook(tmp_path, "b", "print(json.dumps({'message': 'b1'}))", events=["Stop"])
    config, dispatcher, watcher = await start(tmp_path, bus, ["agent/a"])
    try:
        config.write_text(json.dumps({"use": ["agent/a", "agent/b"]}))
        await eventually(lambda: watcher.pending is not None)
        assert watcher.take_pending().ids == ("agent/a", "agent/b")
        await asyncio.sleep(0.5)  # the watcher restarts on the new folder set
        (b / "hook.py").write_text(script("b2"))
        await eventually(lambda: watcher.pending is not None)
        watcher.take_pending()
        receipts = await dispatcher.stop("t", {"status": "completed"})
        assert [r.message for r in receipts] == ["a", "b2"]
    finally:
        await watcher.stop()
        dispatcher.hookset.close()


async def test_an_unchanged_reload_is_not_pending(tmp_path, bus):
    folder = write_hook(tmp_path, "h", "print(json.dumps({'message': 'v1'}))", events=["Stop"])
    _, dispatcher, watcher = await start(tmp_path, bus, ["agent/h"])
    try:
        (folder / "notes.txt").write_text("x")
        await eventually(lambda: watcher.pending is not None)
        watcher.take_pending()
        (folder / "notes.txt").write_text("x")  # same bytes again
        await asyncio.sleep(0.5)
        assert watcher.pending is None
    finally:
        await watcher.stop()
        dispatcher.hookset.close()

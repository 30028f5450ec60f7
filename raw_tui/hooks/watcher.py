"""Reload hooks between turns (docs/hooks.md).

watchfiles watches every selected hook folder (recursively) and the config file. On a change
the session's `reloader` validates everything again (in a worker thread, or awaited when it is
a coroutine function):

- it raises ConfigError → `HooksReload(ok=False, message=...)` is published at once and the
  last good version stays (in use, and pending if one was);
- it returns a HookSet that differs from the one in use → it becomes *pending*;
- `take_pending()`, called by the session at the start of a turn, swaps the pending set into
  the dispatcher, closes the old one and publishes `HooksReload(ok=True, ...)`.

A turn therefore always runs the version it started with. The session only calls
`start()`, `take_pending()` at each turn start, and `await stop()`.
"""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any, Awaitable, Callable, Union

import watchfiles

from ..protocol.bus import Bus, HooksReload
from .load import HookSet

Reloader = Callable[[], Union[HookSet, Awaitable[HookSet]]]


class HookWatcher:
    """Watch hook folders and the config file; keep a validated HookSet pending until a turn starts.

    `dispatcher` is the HookDispatcher whose `hookset` is in use (anything with `.hookset` and
    `.swap(new) -> old`). `config_file` may be None (no config file to watch).
    """

    def __init__(self, reloader: Reloader, *, dispatcher: Any, bus: Bus | None,
                 config_file: Path | str | None, debounce_ms: int = 50, step_ms: int = 10) -> None:
        self._reloader = reloader
        self._dispatcher = dispatcher
        self._bus = bus
        self._config_file = Path(config_file).resolve() if config_file else None
        self._debounce_ms = debounce_ms
        self._step_ms = step_ms
        self._pending: HookSet | None = None
        self._lock = asyncio.Lock()
        self._stopping = False
        self._round: asyncio.Event | None = None  # set to end the current awatch round
        self._watched: frozenset[Path] = frozenset()
        self._task: asyncio.Task | None = None
        self.ready = asyncio.Event()  # set once the watches of a round are running

    @property
    def pending(self) -> HookSet | None:
        return self._pending

    def start(self) -> None:
        """Start watching (call from inside the running event loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop watching; a pending set that was never taken is closed."""
        self._stopping = True
        if self._round is not None:
            self._round.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout=5)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self._task.cancel()
            self._task = None
        if self._pending is not None:
            self._pending.close()
            self._pending = None

    def take_pending(self) -> HookSet | None:
        """At a turn boundary: swap in the pending HookSet (if any) and return it."""
        new, self._pending = self._pending, None
        if new is None:
            return None
        old = self._dispatcher.swap(new)
        if old is not None and old is not new:
            old.close()
        listed = ", ".join(new.ids) if len(new) else "none"
        self._publish(HooksReload(ok=True, message=f"hooks reloaded: {listed}"))
        return new

    # ------------------------------------------------------------------ watching

    def _paths(self) -> tuple[list[Path], list[Path]]:
        """(hook folders to watch recursively, config dirs to watch flat) that exist now."""
        current = self._pending or self._dispatcher.hookset
        folders = [p for p in (current.folders if current else ()) if p.is_dir()]
        flat = []
        if self._config_file is not None and self._config_file.parent.is_dir():
            flat.append(self._config_file.parent)
        return folders, flat

    async def _run(self) -> None:
        while not self._stopping:
            folders, flat = self._paths()
            self._watched = frozenset(folders)
            self._round = asyncio.Event()
            watches = []
            if folders:
                watches.append(self._watch(folders, recursive=True, only=None))
            if flat:
                watches.append(self._watch(flat, recursive=False, only=str(self._config_file)))
            self.ready.set()
            if watches:
                await asyncio.gather(*watches)
            else:
                await self._round.wait()
            self.ready.clear()

    async def _watch(self, paths: list[Path], *, recursive: bool, only: str | None) -> None:
        def keep(change: watchfiles.Change, path: str) -> bool:
            return only is None or path == only

        try:
            async for _changes in watchfiles.awatch(
                *paths, watch_filter=keep, debounce=self._debounce_ms, step=self._step_ms,
                stop_event=self._round, recursive=recursive,
            ):
                await self._reload()
        except Exception as exc:  # a watch that cannot run must not take the session down
            self._publish(HooksReload(ok=False, message=f"hook watcher: {exc}"))
            await self._round.wait()

    async def _reload(self) -> None:
        async with self._lock:
            try:
                new = await self._call_reloader()
            except Exception as exc:  # ConfigError, or a reloader bug: keep the last good version
                self._publish(HooksReload(
                    ok=False, message=f"hooks not reloaded, keeping the last good version: {exc}"))
                return
            self._keep(new)
            if frozenset(p for p in new.folders if p.is_dir()) != self._watched:
                self._round.set()  # the selection changed: watch the new folders

    async def _call_reloader(self) -> HookSet:
        if inspect.iscoroutinefunction(self._reloader):
            return await self._reloader()
        result = await asyncio.to_thread(self._reloader)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _keep(self, new: HookSet) -> None:
        """Make `new` pending unless it equals what is in use (or already pending)."""
        current = self._dispatcher.hookset
        if current is not None and new.fingerprint == current.fingerprint:
            new.close()
            if self._pending is not None:
                self._pending.close()
                self._pending = None
            return
        if self._pending is not None:
            if new.fingerprint == self._pending.fingerprint:
                new.close()
                return
            self._pending.close()
        self._pending = new

    def _publish(self, event: HooksReload) -> None:
        if self._bus is not None:
            self._bus.publish(event)

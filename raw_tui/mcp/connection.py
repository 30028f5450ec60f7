"""One MCP server connection, owned by one asyncio task (docs/mcp.md, docs/mcp.md).

anyio cancel scopes must be exited in the task that entered them, so the task that enters the
SDK's transport and `ClientSession` is the one that leaves them: it connects, lists the tools,
then waits for `close()`. Calls are made from the callers' tasks on the open session, each
under its own deadline, which a progress notification pushes forward (the SDK does not).

A stdio server runs as a process tree of its own (raw_tui.tools.proctree): its environment
carries the tree's token and raw-tui is a child subreaper, so whatever the server starts, in
its group or in a session of its own (`setsid`), ends with it when the connection closes
(SIGTERM, SIGKILL after the grace), or with SIGKILL when raw-tui exits: as bash's do. The SDK
only closes the server's stdin and, if it is still there, kills its group.

This module imports the `mcp` SDK (≈0.9 s): only the manager imports it, and only when a
selected server starts.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import PaginatedRequestParams

from ..protocol.redact import RedactedLog, Redactor
from ..tools import proctree
from ..tools.sandbox.env import child_env
from .config import MissingVariable, ServerConfig, StdioServer, expand
from .results import McpFailure
from .stdio_process import SPAWNED, end_tree, exit_text, probe_spawns

Progress = Callable[[float, float | None, str | None], None]

# how much of a dead server's stderr its notice quotes, and how long its exit status is
# waited for once its stdout closed (the child watcher reports the exit just after)
STDERR_TAIL_LINES = 3
STDERR_TAIL_CHARS = 300
EXIT_STATUS_WAIT_S = 1.0
STDERR_DRAIN_S = 1.0  # a server's stderr copied to its log after it ended (its children
                      # may hold the pipe: bounded)


@dataclass
class ListedTool:
    name: str
    description: str
    input_schema: Any


class Connection:
    """A started server: `start()` (connect and discover), `call()`, `close()`."""

    def __init__(self, name: str, config: ServerConfig, *, cwd: str, log_file: Path,
                 on_death: Callable[[str, str, str], None] | None = None, literal: bool = False,
                 redactor: Redactor | None = None) -> None:
        self.name = name
        self.literal = literal  # env/header values as given (an ACP client's): no ${VAR}
        self.on_death = on_death
        self.config = config
        self.cwd = cwd
        self.log_file = log_file
        self.timeout_s = config.timeout_ms / 1000
        self.session: ClientSession | None = None
        self.tools: list[ListedTool] = []
        self.dead = False  # the connection closed under us (the server exited)
        self.redactor = redactor if redactor is not None else Redactor()
        self._process: Any = None  # a stdio server's process (its exit status)
        self._tree: proctree.Tree | None = None  # a stdio server's processes, to end at close
        self._stderr: RedactedLog | None = None  # a stdio server's stderr, to its log file
        self._death: asyncio.Task | None = None  # saying the server ended
        self._owner: asyncio.Task | None = None
        self._ready: asyncio.Future | None = None
        self._closing = asyncio.Event()

    # life ----------------------------------------------------------------------------------
    async def start(self) -> list[ListedTool]:
        """Connect and discover within `timeout_ms`; McpFailure when the server cannot start.
        Once started, the end of the server (its process exits or the stream closes) is seen
        as it happens: `dead` is set and `on_death(name, why, stderr_tail)` is called once."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        # a failure nobody awaits any more (a start cancelled by a close) is no stray
        # "exception never retrieved" line on the terminal
        self._ready.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._owner = asyncio.create_task(self._own(), name=f"mcp:{self.name}")
        try:
            return await asyncio.shield(self._ready)
        except asyncio.CancelledError:
            await self.close()
            raise

    async def close(self) -> None:
        """End the connection (and a stdio server's process tree); waits for the owner. A
        server still starting is not waited for: its owner is cancelled (its clean-up, the
        process tree's end included, still runs)."""
        self._closing.set()
        if self._owner is not None and self._ready is not None and not self._ready.done():
            self._owner.cancel()
        if self._owner is not None and not self._owner.done():
            try:
                await asyncio.shield(self._owner)
            except BaseException:  # noqa: BLE001 — a failed owner has already reported
                pass

    async def _own(self) -> None:
        ready = self._ready
        try:
            async with AsyncExitStack() as stack:
                # the transport and the session are entered outside the deadline's scope:
                # scopes must nest, and theirs live on after it
                spawned: list[Any] = []
                token = SPAWNED.set(spawned)
                try:
                    read, write = await stack.enter_async_context(self._transport(stack))
                finally:
                    SPAWNED.reset(token)
                    if self._stderr is not None:
                        self._stderr.close_fd()  # the server has its own copy
                self._process = spawned[0] if spawned else None
                if self._tree is not None and self._process is not None:
                    self._tree.leader = self._process.pid
                session = await stack.enter_async_context(
                    ClientSession(_WatchedStream(read, self._stream_ended), write))
                with anyio.fail_after(self.timeout_s):
                    await session.initialize()
                    self.tools = await self._discover(session)
                self.session = session
                ready.set_result(self.tools)
                await self._closing.wait()
                self.session = None
        except BaseException as err:  # noqa: BLE001 — every failure becomes one warning
            self.session = None
            if not ready.done():
                ready.set_exception(self._start_failure(err))
            if isinstance(err, asyncio.CancelledError):
                raise

    def _transport(self, stack: AsyncExitStack):
        config = self.config
        if isinstance(config, StdioServer):
            env = {**child_env(), **self._values(config.env)}  # no provider keys
            proctree.become_subreaper()  # its orphans come to us (found, ended, reaped)
            self._tree = tree = proctree.Tree()
            params = StdioServerParameters(command=config.command, args=list(config.args),
                                           env=tree.env(env), cwd=self.cwd)
            # its stderr goes to the log file through the redactor (it may echo its env)
            self._stderr = stderr = RedactedLog(self.log_file, self.redactor,
                                                name=f"mcp:{self.name}:stderr")
            stack.push_async_callback(asyncio.to_thread, stderr.close, STDERR_DRAIN_S)
            # after the SDK stopped the server, before its stderr is drained (a child
            # holding the pipe would hold that up)
            stack.push_async_callback(end_tree, tree)
            probe_spawns()
            return stdio_client(params, errlog=stderr.fd)  # type: ignore[arg-type]
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=self._values(config.headers))
        stack.push_async_callback(client.aclose)  # ours to close (the SDK closes only its own)
        return streamable_http_client(config.url, http_client=client)

    def _values(self, values: dict[str, str]) -> dict[str, str]:
        return dict(values) if self.literal else expand(values)

    async def _discover(self, session: ClientSession) -> list[ListedTool]:
        """Every page of tools/list; a repeated cursor or a duplicate name is a failure."""
        tools: list[ListedTool] = []
        seen_cursors: set[str] = set()
        names: set[str] = set()
        cursor: str | None = None
        while True:
            params = PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            page = await session.list_tools(params=params)
            for tool in page.tools:
                if tool.name in names:
                    raise McpFailure(f"MCP server {self.name} lists tool {tool.name!r} twice")
                names.add(tool.name)
                tools.append(ListedTool(tool.name, tool.description or "MCP tool",
                                        tool.input_schema))
            cursor = page.next_cursor
            if cursor is None:
                return tools
            if cursor in seen_cursors:
                raise McpFailure(f"MCP pagination cycle from {self.name}")
            seen_cursors.add(cursor)

    def _start_failure(self, err: BaseException) -> McpFailure:
        found = _first(err, McpFailure)
        if found is not None:
            return found
        if _first(err, TimeoutError) is not None:
            return McpFailure(f"MCP server {self.name} did not answer within "
                              f"{self.config.timeout_ms} ms", timed_out=True)
        missing = _first(err, MissingVariable)
        if missing is not None:
            return McpFailure(f"MCP server {self.name}: {missing}")
        if isinstance(self.config, StdioServer) and _first(err, FileNotFoundError) is not None:
            return McpFailure(f"MCP server {self.name}: command {self.config.command!r} "
                              "not found")
        if isinstance(err, asyncio.CancelledError):
            return McpFailure(f"MCP server {self.name}: start cancelled")
        return McpFailure(f"MCP server {self.name} could not start ({_kind(err)})")

    # death -------------------------------------------------------------------------------
    def _stream_ended(self) -> None:
        """The server's stream ended without our close: it exited or closed its stdout."""
        if self._closing.is_set() or self.session is None or self.dead:
            return
        self.dead = True  # at once: a call from now on is refused
        self._death = asyncio.get_running_loop().create_task(self._report_death(),
                                                             name=f"mcp:{self.name}:death")

    async def death_reported(self) -> None:
        """Wait until a death seen before now has been said (bounded: its exit status and
        stderr are waited for at most EXIT_STATUS_WAIT_S each)."""
        if self._death is not None:
            await asyncio.shield(self._death)

    async def _report_death(self) -> None:
        process = self._process
        if process is not None:
            waited = 0.0
            while process.returncode is None and waited < EXIT_STATUS_WAIT_S:
                await asyncio.sleep(0.01)
                waited += 0.01
        status = process.returncode if process is not None else None
        self._ended(exit_text(status), await self._stderr_tail(), force=True)

    def _ended(self, why: str, tail: str = "", *, force: bool = False) -> None:
        """Say once that the server ended (`force`: the watch, which saw the end before any
        close and already set `dead`)."""
        if self.dead and not force or not force and self._closing.is_set():
            self.dead = True
            return
        self.dead = True
        if self.on_death is not None:
            self.on_death(self.name, why, tail)

    async def _stderr_tail(self) -> str:
        """The last lines this server wrote on its stderr (one line, clipped, redacted)."""
        stderr = self._stderr
        if stderr is None:
            return ""
        await asyncio.to_thread(stderr.drained, EXIT_STATUS_WAIT_S)
        lines = [line.strip() for line in stderr.tail().splitlines() if line.strip()]
        tail = " / ".join(lines[-STDERR_TAIL_LINES:])
        return tail if len(tail) <= STDERR_TAIL_CHARS else "…" + tail[-STDERR_TAIL_CHARS:]

    # calls ---------------------------------------------------------------------------------
    async def call(self, tool: str, arguments: dict[str, Any], *,
                   progress: Progress | None = None) -> dict[str, Any]:
        """The wire form of the CallToolResult. McpFailure on a failure or a timeout (the
        connection stays usable); a cancel of the calling task sends MCP's cancellation."""
        session = self.session
        if session is None or self.dead:
            raise McpFailure(f"MCP call failed: {self.name}")
        timeout = self.timeout_s
        scope = anyio.CancelScope(deadline=anyio.current_time() + timeout)

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            scope.deadline = anyio.current_time() + timeout
            if progress is not None:
                progress(done, total, message)

        try:
            with scope:
                result = await session.call_tool(tool, dict(arguments),
                                                 progress_callback=on_progress)
        except (MCPError, RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError,
                OSError, ValueError) as err:
            if _closed(err):
                self._ended("it closed the connection")
            raise McpFailure(f"MCP call failed: {self.name}") from None
        except BaseExceptionGroup as group:
            if group.subgroup(asyncio.CancelledError) is not None:
                raise
            raise McpFailure(f"MCP call failed: {self.name}") from None
        if scope.cancelled_caught:
            raise McpFailure(f"MCP call timed out: {self.name}", timed_out=True)
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")


def _first(err: BaseException, kind: type) -> Any:
    """`err` or the first exception of that kind inside (exception groups, causes)."""
    seen = 0
    stack = [err]
    while stack and seen < 64:
        seen += 1
        item = stack.pop()
        if isinstance(item, kind):
            return item
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
        for nested in (item.__cause__, item.__context__):
            if nested is not None:
                stack.append(nested)
    return None


def _kind(err: BaseException) -> str:
    """A short, secret-free description: the exception's type and an MCP error's code."""
    mcp_error = _first(err, MCPError)
    if mcp_error is not None and _closed(mcp_error):
        return "it closed the connection"
    if mcp_error is not None:
        return f"MCP error {getattr(mcp_error, 'code', '?')}"
    if isinstance(err, BaseExceptionGroup) and err.exceptions:
        return _kind(err.exceptions[0])
    return type(err).__name__


def _closed(err: BaseException) -> bool:
    return isinstance(err, (anyio.ClosedResourceError, anyio.BrokenResourceError)) or \
        "connection closed" in str(err).lower()


class _WatchedStream:
    """The transport's read stream as the SDK reads it, telling the connection the moment it
    ends (the server exited or closed its stdout), not at the next call. No extra hop: each
    message is the inner stream's."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> Any:  # the SDK reads it duck-typed from context streams
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> "_WatchedStream":
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> "_WatchedStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

"""Only JSON-RPC messages reach the ACP SDK's router (JSON-RPC 2.0 §4, §5).

The SDK hands every JSON value read from a line to its router, which reads it as an object:
a valid line that is no message (`[1,2,3]`, `"str"`, `42`, `{}`), an `id` that is an array
or an object, a `method` that is not a string, a response whose `error` is not an object —
each ended `raw-tui acp` and every open session with it; a line `null` was taken for the end
of the input. `CheckedTransport` wraps the transport: such a message is answered with a
JSON-RPC error -32600 (Invalid Request, with its `id` when that is usable, else `null`), a
line that is not JSON with -32700 (Parse error, `id: null`); each is logged in one line and
the stream goes on. ACP has no batches: an array is one invalid request.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from typing import Any

from ..jsonstrict import lone_surrogate_at, printable_path
from ..protocol.errors import json_path
from .codes import INVALID_REQUEST, PARSE_ERROR

log = logging.getLogger("raw_tui.acp")


def problem(message: Any) -> tuple[str, Any] | None:
    """(why, the id to answer with) when `message` is not a JSON-RPC request, notification
    or response raw-tui can route; None when it is one."""
    if not isinstance(message, dict):
        return f"a message is a JSON object, not {_kind(message)}", None
    usable = "id" not in message or _usable_id(message["id"])
    ident = message.get("id") if usable else None
    if not usable:
        return "id: must be a string, a number or null", None
    where = lone_surrogate_at(message)  # text no path, regex or hook can take
    if where is not None:
        return f"{json_path(printable_path(where))}: not valid Unicode (lone surrogate)", ident
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method: must be a string", ident
        return None
    if "id" not in message:
        return "neither a request, a notification nor a response", None
    if "error" in message and not isinstance(message["error"], (dict, type(None))):
        return "error: must be an object", None  # an answer to nothing we can use
    return None


def _usable_id(ident: Any) -> bool:
    if ident is None or isinstance(ident, str):
        return True
    if isinstance(ident, bool):
        return False
    if isinstance(ident, int):
        return True
    return isinstance(ident, float) and math.isfinite(ident)


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    return type(value).__name__


def refusal(why: str, ident: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident,
            "error": {"code": INVALID_REQUEST, "message": f"Invalid Request: {why}"}}


class CheckedTransport:
    """A transport of the SDK (`send`, `receive`, `close`) whose `receive` returns only
    messages `problem` accepts; the others are answered on the spot. `owned` is closed
    after the inner transport (the task supervisor of a byte-stream sender)."""

    def __init__(self, inner: Any, owned: Any = None) -> None:
        self._inner = inner
        self._owned = owned

    async def send(self, message: dict[str, Any]) -> None:
        await self._inner.send(message)

    async def receive(self) -> dict[str, Any] | None:
        while True:
            message = await self._inner.receive()
            if message is None:
                return None
            if isinstance(message, _NotJson):
                await self._answer(PARSE_ERROR, f"Parse error: {message.why}", None)
                continue
            if isinstance(message, _Value):
                message = message.value
            found = problem(message)
            if found is None:
                return message
            why, ident = found
            await self._answer(INVALID_REQUEST, f"Invalid Request: {why}", ident)

    async def _answer(self, code: int, text: str, ident: Any) -> None:
        log.warning("refused a line that is not a JSON-RPC message: %s", text)
        try:
            await self._inner.send({"jsonrpc": "2.0", "id": ident,
                                    "error": {"code": code, "message": text}})
        except Exception as err:  # noqa: BLE001 — the client went away: EOF comes next
            log.warning("could not answer it: %s", type(err).__name__)

    async def close(self) -> None:
        try:
            await self._inner.close()
        finally:
            if self._owned is not None:
                await self._owned.shutdown()


class _NotJson:
    """A line that is not JSON (the SDK's framing skipped it, and said nothing)."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


class LineTransport:
    """Newline-delimited JSON over asyncio byte streams, framed as the SDK frames it (a line
    longer than the reader's limit is read in pieces), each line decoded on its own: a
    line `null` is a value, not the end of the stream (the SDK's framing took it for one),
    and a line that is not JSON comes out as `_NotJson`."""

    def __init__(self, reader: Any, sender: Any) -> None:
        self._reader = reader
        self._sender = sender

    async def send(self, message: dict[str, Any]) -> None:
        await self._sender.send(message)

    async def receive(self) -> Any:
        while True:
            line = await self._read_line()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            try:  # strict UTF-8 (json.loads of bytes would let encoded surrogates through)
                return _Value(json.loads(line.decode("utf-8")))
            except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
                return _NotJson(_why(err))

    async def _read_line(self) -> bytes:
        chunks: list[bytes] = []
        try:
            while True:
                try:
                    chunks.append(await self._reader.readuntil(b"\n"))
                    return b"".join(chunks)
                except asyncio.LimitOverrunError as exc:
                    chunks.append(await self._reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            chunks.append(exc.partial)
            return b"".join(chunks)

    async def close(self) -> None:
        await self._sender.close()


class _Value:
    """A decoded line (any JSON value, `null` included) on its way to `CheckedTransport`."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _why(err: BaseException) -> str:
    if isinstance(err, RecursionError):
        return "nested too deeply"
    if isinstance(err, UnicodeDecodeError):
        return "not UTF-8"
    return "not JSON"


def checked(writer: Any, reader: Any = None) -> CheckedTransport:
    """The checked transport over a byte-stream pair (`LineTransport` with the SDK's
    sender), or over one message transport when `reader` is None."""
    if reader is None:
        return CheckedTransport(writer)
    from acp.task import MessageSender, TaskSupervisor

    supervisor = TaskSupervisor(source="raw-tui acp")
    return CheckedTransport(LineTransport(reader, MessageSender(writer, supervisor)),
                            owned=supervisor)

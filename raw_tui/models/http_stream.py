"""POST a JSON request, read a server-sent event stream back; every failure one line.

Shared by the two HTTP providers. One `httpx.AsyncClient` per request (creating one costs
about 0.2 ms with the cached TLS context), so a cancelled or failed request leaves nothing
open: leaving the `async with` closes the response, its connection and the client.
`request_timeout_ms` bounds connecting and every wait for data (httpx's per-read timeout), so
a stalled stream fails after that long without data, while a long, live stream runs on.
"""

from __future__ import annotations

import os
import ssl
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import httpx
import msgspec

from ..jsonstrict import decode
from .base import (DEFAULT_REQUEST_TIMEOUT_MS, ConfigError, ModelError, TextDelta, ToolCallRequest,
                   one_line, spec_path, spec_value)
from .sse import SSEEvent, iter_sse

ERROR_BODY_LIMIT = 64 * 1024

_tls: ssl.SSLContext | None = None


def tls_context() -> ssl.SSLContext:
    global _tls
    if _tls is None:
        _tls = httpx.create_ssl_context()
    return _tls


def resolve_api_key(name: str, api_key: str | None, api_key_env: str | None) -> str | None:
    """The key itself, else the named environment variable's value; None when neither is
    configured (local servers need none)."""
    if api_key:
        return api_key
    if api_key_env:
        value = os.environ.get(api_key_env)
        if not value:
            raise ModelError(f"{name}: environment variable {api_key_env} is not set", kind="auth")
        return value
    return None


def error_detail(body: bytes, reason: str) -> str:
    """The provider's own message from an error body: `{"error": {"message": ...}}`
    (OpenAI, Anthropic), `{"error": "..."}` (Ollama), `{"message"|"detail": ...}`, or the text."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = decode(text)
    except ValueError:
        return text or reason
    message: Any = None
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict):
            message = err.get("message") or err.get("type")
        elif isinstance(err, str):
            message = err
        else:
            message = data.get("message") or data.get("detail")
    if isinstance(message, str) and message.strip():
        return message
    return text or reason


async def read_capped(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= ERROR_BODY_LIMIT:
            break
    return b"".join(chunks)


def origin(url: str) -> str:
    try:
        parsed = httpx.URL(url)
        return f"{parsed.host}:{parsed.port}" if parsed.port else parsed.host
    except Exception:
        return url


@asynccontextmanager
async def open_sse(
    name: str, url: str, headers: dict[str, str], body: Any, timeout_ms: int
) -> AsyncIterator[AsyncIterator[SSEEvent]]:
    """`async with open_sse(...) as events: async for event in events: ...`

    Raises ModelError for an HTTP error status (with the provider's message), a refused or
    dropped connection, a timeout, and a body that is not an event stream."""
    where = origin(url)
    started = False
    try:
        async with httpx.AsyncClient(verify=tls_context(), timeout=timeout_ms / 1000) as client:
            request_headers = {
                "content-type": "application/json",
                "accept": "text/event-stream",
                **headers,
            }
            content = msgspec.json.encode(body)
            async with client.stream("POST", url, headers=request_headers, content=content) as response:
                started = True
                await check_response(name, response)
                yield iter_sse(response.aiter_lines())
    except ModelError:
        raise
    except httpx.ConnectTimeout:
        raise ModelError(f"{name}: timed out after {timeout_ms} ms connecting to {where}", kind="timeout") from None
    except httpx.TimeoutException:
        raise ModelError(f"{name}: timed out after {timeout_ms} ms waiting for {where}", kind="timeout") from None
    except httpx.ConnectError as exc:
        raise ModelError(f"{name}: cannot connect to {where}: {describe(exc)}", kind="connect") from None
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
        what = "connection dropped mid-stream" if started else "connection closed before a response"
        raise ModelError(f"{name}: {what} from {where}: {describe(exc)}", kind="dropped") from None
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        raise ModelError(f"{name}: invalid URL {url!r}: {describe(exc)}", kind="connect") from None
    except httpx.HTTPError as exc:
        raise ModelError(f"{name}: request to {where} failed: {describe(exc)}", kind="protocol") from None


async def check_response(name: str, response: httpx.Response) -> None:
    status = response.status_code
    if status >= 400:
        body = await read_capped(response)
        detail = error_detail(body, response.reason_phrase or "error")
        raise ModelError(f"{name}: HTTP {status}: {detail}", kind="http", status=status)
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("application/json"):
        body = await read_capped(response)
        detail = error_detail(body, "")
        raise ModelError(
            f"{name}: expected an event stream, got {content_type}: {detail}", kind="protocol", status=status
        )


def describe(exc: BaseException) -> str:
    return one_line(str(exc), 200) or type(exc).__name__


def guarded(name: str, take: Any, *args: Any) -> list[Any]:
    """`take(*args)`, the items a provider made of one event: data of the wrong shape (an
    object where a string belongs, ...) is a one-line ModelError, and every item is checked,
    so nothing ill-typed reaches the session or its history."""
    try:
        items = take(*args)
    except ModelError:
        raise
    except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
        raise ModelError(f"{name}: unexpected data in stream: {describe(exc)}") from None
    for item in items:
        if isinstance(item, TextDelta) and not isinstance(item.text, str):
            raise ModelError(f"{name}: unexpected data in stream: text that is not a string")
        if isinstance(item, ToolCallRequest) and not (isinstance(item.id, str)
                                                      and isinstance(item.name, str)):
            raise ModelError(f"{name}: unexpected data in stream: a tool call whose id or "
                             f"name is not a string")
    return items


def decode_json(name: str, data: str) -> Any:
    """One event's JSON payload; garbage is a one-line ModelError."""
    try:
        return decode(data)
    except ValueError:
        raise ModelError(f"{name}: invalid JSON in stream: {one_line(data, 120)}", kind="protocol") from None


class HttpModel:
    """What the HTTP providers share: their settings and how they are made from a model
    config. Subclasses set `name` (the method), `default_base_url` and
    `default_max_tokens`."""

    name: str = ""
    default_base_url: str = ""
    default_max_tokens: int | None = None

    def __init__(self, model_id: str, *, base_url: str | None = None,
                 api_key: str | None = None, api_key_env: str | None = None,
                 request_timeout_ms: int = DEFAULT_REQUEST_TIMEOUT_MS,
                 max_tokens: int | None = None, tool_choice: str | None = None) -> None:
        self.model_id = model_id
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self._api_key = api_key
        self.api_key_env = api_key_env
        self.request_timeout_ms = request_timeout_ms
        self.max_tokens = max_tokens if max_tokens is not None else self.default_max_tokens
        self.tool_choice = tool_choice

    def __repr__(self) -> str:  # never the key
        return f"{type(self).__name__}(model_id={self.model_id!r}, base_url={self.base_url!r})"

    def replay(self, prompts: list[str]) -> None:
        """A resumed session's requests: an HTTP model keeps no position (models/base.py)."""

    @classmethod
    def from_spec(cls, spec: Any):
        model_id = spec_value(spec, "model_id")
        if not model_id:
            raise ConfigError(f"model_id is required for method {cls.name}",
                              path=spec_path(spec, "model_id"))
        return cls(
            model_id,
            base_url=spec_value(spec, "base_url"),
            api_key=spec_value(spec, "api_key"),
            api_key_env=spec_value(spec, "api_key_env"),
            request_timeout_ms=spec_value(spec, "request_timeout_ms", DEFAULT_REQUEST_TIMEOUT_MS),
            max_tokens=spec_value(spec, "max_tokens"),
            tool_choice=spec_value(spec, "tool_choice"),
        )

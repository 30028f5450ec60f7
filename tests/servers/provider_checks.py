"""Helpers for tests that drive a provider: a first prompt and a tool to offer, collect a
stream, check a one-line ModelError, cancel mid-stream."""

from __future__ import annotations

import asyncio
import time

import pytest

from raw_tui.protocol.errors import MODEL_ERROR
from raw_tui.models.base import ModelError, TextDelta, ToolDefinition, user_message

HELLO = [user_message("Say hello")]
READ_TOOL = ToolDefinition(
    name="read_file",
    description="Read a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


async def collect(provider, messages, tools=(), system=None):
    return [item async for item in provider.stream(list(messages), list(tools), system=system)]


def text_of(items) -> str:
    return "".join(item.text for item in items if isinstance(item, TextDelta))


def kinds(items) -> list[str]:
    return [type(item).__name__ for item in items]


async def model_error(provider, messages, tools=(), system=None) -> ModelError:
    with pytest.raises(ModelError) as info:
        await collect(provider, messages, tools, system)
    err = info.value
    text = str(err)
    assert err.code == MODEL_ERROR
    assert "\n" not in text and "Traceback" not in text, text
    assert text.startswith(provider.name + ": "), text
    return err


async def cancel_mid_stream(provider, messages) -> list:
    """Consume until the first text delta, then cancel the consuming task."""
    seen: list = []
    first = asyncio.Event()

    async def consume():
        async for item in provider.stream(messages, [], system=None):
            seen.append(item)
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1
    return seen

"""Server-sent events, as both model APIs send them (the WHATWG event-stream format).

Fields `event:` and `data:` (several `data:` lines join with a newline); a blank line ends an
event; lines starting with `:` are comments; one space after the colon is dropped. An event
cut off by the end of the stream is discarded, as the format says.
"""

from __future__ import annotations

from typing import AsyncIterable, AsyncIterator

import msgspec


class SSEEvent(msgspec.Struct):
    event: str
    data: str


async def iter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SSEEvent]:
    event = ""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield SSEEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        # comments (empty name), `id:`, `retry:` and unknown fields are ignored

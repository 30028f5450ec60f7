"""Credentials never leave (issue 9 §4): one redactor that knows every configured secret
value and takes it out of text before that text is written anywhere.

The configuration owns one `Redactor` (`config.redactor`); whoever reads a credential
registers its value there (`config.redactor.register(value)`): the API keys of `models`
(`api_key`, and the value of `api_key_env` when it is set), and the `headers` and `env`
values of MCP servers. It is applied where text leaves raw-tui:

- `Bus.publish`: every event, before any subscriber (history, `--output jsonl`/text, the UI,
  the session host's socket) sees it;
- hook payloads, before they are written to a hook's stdin;
- the run's outcome (the `raw-tui:` line on stderr, Stop hooks), `call`'s report;
- tool results, before the model reads them; assistant text deltas, across delta borders.

A value shorter than `MIN_SECRET_CHARS` is not registered: replacing every `true` or
`8080` in every text would ruin the text and protect nothing. A value of the form
`Scheme TOKEN` (an `Authorization` header) registers the token too, since a server may
echo the token alone.
"""

from __future__ import annotations

import json
from typing import TypeVar

import msgspec

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8

T = TypeVar("T")


class Redactor:
    """The secret values of one configuration; every method returns its input unchanged
    (the same object) when it holds none of them."""

    def __init__(self) -> None:
        self._values: tuple[str, ...] = ()  # longest first: a key inside another goes last
        self._needles: tuple[bytes, ...] = ()  # the values as they appear inside JSON text

    def register(self, value: str | None) -> None:
        if not isinstance(value, str):
            return
        candidates = [value.strip()]
        scheme, _, token = candidates[0].partition(" ")
        if token and scheme.isalpha():
            candidates.append(token.strip())
        for candidate in candidates:
            if len(candidate) >= MIN_SECRET_CHARS and candidate not in self._values:
                self._values = tuple(sorted((*self._values, candidate), key=len, reverse=True))
                self._needles = tuple(msgspec.json.encode(v)[1:-1] for v in self._values)

    def __bool__(self) -> bool:
        return bool(self._values)

    def text(self, text: str) -> str:
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED)
        return text

    def json(self, value: T) -> T:
        """A JSON value (dicts, lists, strings; keys too) with every secret replaced."""
        if not self._values:
            return value
        if isinstance(value, str):
            return self.text(value)  # type: ignore[return-value]
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.json(v)  # type: ignore[return-value]
                    for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.json(v) for v in value]  # type: ignore[return-value]
        return value

    def holds_secret(self, data: bytes) -> bool:
        """Whether encoded JSON may hold a secret (a quick test before the real work)."""
        return any(needle in data for needle in self._needles)

    def encoded(self, data: bytes) -> bytes:
        """Encoded JSON with every secret in its strings replaced."""
        if not self.holds_secret(data):
            return data
        # json, not msgspec: a lone surrogate sent as `\udcff` (a hook payload) stays so
        return json.dumps(self.json(json.loads(data)), ensure_ascii=True,
                          separators=(",", ":")).encode("ascii")

    def struct(self, value: T) -> T:
        """A msgspec Struct (an event) with every secret in its strings replaced."""
        if not self._values or not self.holds_secret(msgspec.json.encode(value)):
            return value
        return msgspec.convert(self.json(msgspec.to_builtins(value)), type(value))

    def stream(self) -> "StreamRedactor":
        return StreamRedactor(self)


class StreamRedactor:
    """Text that arrives in pieces (a model's deltas): a secret cut across two pieces is
    still caught. `feed` returns what is safe to show now, holding back only an end that
    could be the start of a secret; `flush` returns the rest."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.pending = ""

    def feed(self, piece: str) -> str:
        values = self.redactor._values
        if not values:
            return piece
        text = self.redactor.text(self.pending + piece)
        hold = _longest_secret_start(text, values)
        self.pending = text[len(text) - hold:] if hold else ""
        return text[:len(text) - hold] if hold else text

    def flush(self) -> str:
        rest, self.pending = self.pending, ""
        return rest


def _longest_secret_start(text: str, values: tuple[str, ...]) -> int:
    """The length of the longest end of `text` that a secret begins with."""
    best = 0
    for value in values:
        for size in range(min(len(value) - 1, len(text)), best, -1):
            if value.startswith(text[-size:]):
                best = size
                break
    return best

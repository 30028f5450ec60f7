"""Credentials never leave (docs/security.md): one redactor that knows every configured secret
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

from typing import Callable, TypeVar

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
        import json

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


class RedactedLog:
    """A log written through a file descriptor (a child's stderr, `raw-tui acp`'s fds 1 and
    2): `fd` is the write end of a pipe whose other end a thread copies to `path` (appended)
    with every secret the redactor knows (now or later) replaced. The last `TAIL_CHARS` of
    what was written are kept (`tail()`). `close()` closes our write end and waits (bounded)
    for the copy to end: it ends when every process holding the write end has closed it."""

    TAIL_CHARS = 4096

    def __init__(self, path, redactor: Redactor, *, name: str = "redacted-log") -> None:
        import os
        import threading

        # 0600 (a log quotes transcripts); its folder is the caller's (raw_tui/paths.py)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        if os.fstat(fd).st_uid == os.getuid():
            os.fchmod(fd, 0o600)
        self._file = os.fdopen(fd, "ab", buffering=0)
        read_fd, self.fd = os.pipe()
        self._redactor = redactor
        self._tail = ""
        self._done = threading.Event()
        threading.Thread(target=self._copy, args=(read_fd,), name=name, daemon=True).start()

    def _copy(self, read_fd: int) -> None:
        import codecs
        import os

        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        shown = self._redactor.stream()
        try:
            while chunk := os.read(read_fd, 65536):
                self._write(shown.feed(decoder.decode(chunk)))
            self._write(shown.feed(decoder.decode(b"", final=True)) + shown.flush())
        except OSError:
            pass
        finally:
            os.close(read_fd)
            self._file.close()
            self._done.set()

    def _write(self, text: str) -> None:
        if text:
            self._file.write(text.encode("utf-8", "surrogateescape"))
            self._tail = (self._tail + text)[-self.TAIL_CHARS:]

    def tail(self) -> str:
        return self._tail

    def drained(self, timeout: float) -> bool:
        """Wait until every writer closed the pipe and the copy ended (or `timeout`)."""
        return self._done.wait(timeout)

    def close_fd(self) -> None:
        """Close our write end (once the children that write to it have their own copy)."""
        import os

        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def close(self, timeout: float = 1.0) -> None:
        self.close_fd()
        self.drained(timeout)

    def redirect_std(self, *, restore: bool = True) -> Callable[[], None]:
        """From here on, this process's fds 1 and 2 (its prints, a child's output, a
        traceback) write to the log. Returns what ends it: fds 1 and 2 back to what they
        were (to /dev/null with `restore=False`: a protocol stream must not get them back),
        then `close` (bounded: a daemon a command left may still hold a copy)."""
        import os
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        before = [os.dup(fd) for fd in (1, 2)] if restore else []
        for fd in (1, 2):
            os.dup2(self.fd, fd)

        def end() -> None:
            sys.stdout.flush()
            sys.stderr.flush()
            after = before or [os.open(os.devnull, os.O_WRONLY)] * 2
            for fd, target in zip((1, 2), after):  # still open for whatever writes at exit
                os.dup2(target, fd)
            for target in set(after):
                os.close(target)
            self.close(timeout=2.0)

        return end

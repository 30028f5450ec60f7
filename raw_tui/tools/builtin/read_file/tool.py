"""builtin/read_file: a text file as numbered lines (docs/gate.md).

Arguments `{path, offset?, limit?}`: `path` relative to `ctx.cwd` or absolute; `offset` is the
first line shown (1-based, default 1); `limit` the most lines shown (default 2000). Lines are
split on `\\n` only and shown as `N<TAB>text`, the numbering `write_file`'s `replace_lines`
uses. A line longer than 2000 characters is cut (`… [line cut: N chars]`). The text shown
stays under the output budget (the agent's `max_output_bytes` when the context carries it,
else 8 KiB, less room for the note); when lines are left out, a last line says which and the
`offset` that continues.

The file is read only as far as the lines shown (plus up to 1 MiB to count the lines it has;
past that the note gives no total), in 64 KiB chunks, a line kept to its first 8 KiB: a 2 GiB
file costs no more memory than a small one. FIFOs, devices and sockets are refused before any
read (`/dev/zero` is never read).

Errors raise (dispatch makes them `read_file failed: MSG`): no such file, a directory, not a
regular file, not UTF-8 text (a NUL byte in the first 8 KiB or in a line shown, or invalid
UTF-8 in a line shown), an offset past the end.
"""

from __future__ import annotations

from raw_tui.tools.strict import strict_error

import os
import stat
from typing import Any, BinaryIO, Iterator

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
DEFAULT_BUDGET = 8192
NOTE_ROOM = 160
READ_CHUNK = 64 * 1024
CLIP_BYTES = MAX_LINE_CHARS * 4 + 4  # enough bytes for MAX_LINE_CHARS characters
COUNT_BYTES = 1024 * 1024  # how far past the shown lines the file is read to count its lines
UTF8_CONTINUATION = bytes(range(0x80, 0xC0))


def validate_args(args: Any) -> str | None:
    problem = strict_error('read_file', args)
    if problem:
        return problem
    if not isinstance(args, dict):
        return None
    path = args.get("path")
    if isinstance(path, str) and (not path or "\0" in path):
        return "path is empty or holds a NUL character"
    for key in ("offset", "limit"):
        value = args.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            return f"{key} must be 1 or more"
    return None


def handler(args: Any, ctx: Any) -> str:
    path = os.path.normpath(os.path.join(ctx.cwd, args["path"]))
    offset = args.get("offset", 1)
    limit = args.get("limit", DEFAULT_LIMIT)
    budget = ctx.max_output_bytes or DEFAULT_BUDGET
    budget = max(512, budget) - NOTE_ROOM
    with open_regular(path) as handle:
        return render(path, handle, offset, limit, budget)


def open_regular(path: str) -> BinaryIO:
    """The file opened for reading; FIFOs, devices and sockets are refused before any read
    (opened with O_NONBLOCK, so a FIFO without a writer does not block the open)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file: {path}") from None
    except PermissionError:
        raise PermissionError(f"permission denied: {path}") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"{path} is a directory") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"{path} is a directory")
        raise ValueError(f"{path} is not a regular file ({kind_of(mode)}): not read")
    return os.fdopen(fd, "rb")


def kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


class RawLines:
    """Each line (split on `\\n`) as its first CLIP_BYTES bytes and how many characters
    were dropped after them; a final newline does not start another line. Memory stays
    bounded whatever the file holds (one chunk and one clipped line). Reading stops, and
    `stopped` is set, once more than `stop_at` bytes were read (None: no limit)."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.stop_at: int | None = None
        self.stopped = False

    def __iter__(self) -> Iterator[tuple[bytes, int]]:
        part = bytearray()
        dropped = 0
        while chunk := self.handle.read(READ_CHUNK):
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                dropped += keep(part, chunk[start:end])
                yield bytes(part), dropped
                part.clear()
                dropped = 0
                start = end + 1
            dropped += keep(part, chunk[start:])
            if self.stop_at is not None and self.handle.tell() > self.stop_at:
                self.stopped = True
                return
        if part or dropped:
            yield bytes(part), dropped


def keep(part: bytearray, data: bytes) -> int:
    """Add `data` to the line `part` up to CLIP_BYTES; the characters left out."""
    room = CLIP_BYTES - len(part)
    if room >= len(data):
        part += data
        return 0
    if room > 0:
        part += data[:room]
        data = data[room:]
    return len(data.translate(None, UTF8_CONTINUATION))


def decode_line(raw: bytes, dropped: int, path: str, number: int) -> str:
    if b"\0" in raw:
        raise ValueError(f"{path} is a binary file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        if not dropped or err.start < len(raw) - 3:
            raise ValueError(f"{path} is not UTF-8 text (line {number})") from None
        text = raw[:err.start].decode("utf-8")  # the clip cut a character in two
        dropped += 1
    if text.endswith("\r") and not dropped:
        text = text[:-1]
    return clip_line(text, len(text) + dropped)


def render(path: str, handle: BinaryIO, offset: int, limit: int, budget: int) -> str:
    """Lines `offset`… as `N<TAB>text` within `limit` and `budget`, reading the file only as
    far as needed (and up to COUNT_BYTES more to say how many lines it has)."""
    head = handle.peek(8192)[:8192] if hasattr(handle, "peek") else b""
    if b"\0" in head:
        raise ValueError(f"{path} is a binary file")
    out: list[str] = []
    used = 0
    number = 0
    more = False
    reader = RawLines(handle)
    lines = iter(reader)
    for raw, dropped in lines:
        number += 1
        if number < offset:
            continue
        if len(out) >= limit:
            more = True
            break
        line = f"{number}\t{decode_line(raw, dropped, path, number)}"
        size = len(line.encode()) + 1
        if out and used + size > budget:
            more = True
            break
        out.append(line)
        used += size
    total = number if not more else count_rest(reader, lines, number)
    if number == 0:
        return "(empty file)"
    if not out:
        raise ValueError(f"offset {offset} is past the end: the file has {number} lines")
    last = offset + len(out) - 1
    if more:
        of = f" of {total}" if total is not None else ""
        out.append(f"[lines {offset}-{last}{of}; continue with offset={last + 1}]")
    return "\n".join(out)


def count_rest(reader: RawLines, lines: Iterator[tuple[bytes, int]], seen: int) -> int | None:
    """How many lines the file has, when it ends within COUNT_BYTES from here; else None."""
    reader.stop_at = reader.handle.tell() + COUNT_BYTES
    seen += sum(1 for _ in lines)
    return None if reader.stopped else seen


def clip_line(line: str, chars: int) -> str:
    """The line cut to MAX_LINE_CHARS characters; `chars` is its whole length."""
    if chars <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [line cut: {chars} chars]"


def summarize(args: Any, ctx: Any) -> str:
    """`read_file PATH` (`from line N`): the call's line in the chat (tools/summary.py)."""
    from raw_tui.tools.summary import relative

    path = relative(os.path.normpath(os.path.join(ctx.cwd, args["path"])), ctx.cwd)
    offset = args.get("offset")
    return f"read_file {path}" + (f" from line {offset}" if offset else "")

"""Strict JSON: no comments, no trailing commas, no NaN or out-of-range numbers, no duplicate
keys, no lone surrogates, at most MAX_DEPTH levels; errors name a line or a JSON path. The
one decoder of JSON text that comes from outside: raw.json, tool.json, hook.json, `call
--args`, `hooks test --payload`, scripted model files, model streams and hook stdout."""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import msgspec

from .protocol.errors import ConfigError, json_path


MAX_DEPTH = 64  # arrays and objects nested in one another, the root counting as 1


class JsonError(ValueError):
    """Text that is not strict JSON, or a value that JSON cannot carry: `detail`, and `where`
    (the path of the offending value; None when the text as a whole is at fault)."""

    def __init__(self, detail: str, where: list[str | int] | None = None, *,
                 syntax: json.JSONDecodeError | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.where = where
        self.syntax = syntax  # the parser's own error (its msg, lineno, colno), if that

    def path(self) -> str:
        """`a.b[2]` (long paths cut after a few segments), `(root)`, or "" for the text."""
        if self.where is None:
            return ""
        shown = printable_path(self.where[:_SHOWN_SEGMENTS])
        return (json_path(shown) or "(root)") + ("…" if len(self.where) > _SHOWN_SEGMENTS else "")


_SHOWN_SEGMENTS = 8


class _Dup(dict):
    """An object that held a duplicate key (the key is kept to report it with its path)."""

    dup_key: str = ""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            marked = _Dup(pairs)
            marked.dup_key = key
            return marked
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # Python would decode 1e999 to inf (and hand it on as null)
        raise ValueError(f"number {_cut(text)} is out of range")
    return value


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def decode(text: str | bytes) -> Any:
    """Strict JSON text to a value: no comments, no trailing commas, no NaN/Infinity, no
    number out of a double's range, no duplicate key, no lone surrogate, at most MAX_DEPTH
    levels. Bytes must be UTF-8. Raises JsonError (never RecursionError: a hostile depth is
    one clean error)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as err:
            raise JsonError(f"not UTF-8 (byte {err.start})") from None
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant,
                           parse_float=_finite)
    except json.JSONDecodeError as err:
        raise JsonError(f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}",
                        syntax=err) from None
    except RecursionError:
        raise JsonError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
    except (ValueError, TypeError) as err:  # a constant or a number refused, bytes not UTF-8
        raise JsonError(f"invalid JSON: {err}") from None
    problem = json_problem(value)
    if problem is not None:
        raise problem
    return value


def json_problem(value: Any, *, max_depth: int = MAX_DEPTH) -> JsonError | None:
    """Why `value` is not a JSON value raw-tui accepts, or None: a duplicate key (from
    decode), a lone surrogate, a number that is not finite, nesting deeper than `max_depth`,
    a key that is not a string, a type JSON does not have. One walk, no recursion; a node's
    path is a chain `(key, parent chain)` made into a list only for the error."""
    stack: list[tuple[Any, int, Any]] = [(value, 0, None)]
    while stack:
        node, depth, chain = stack.pop()
        if isinstance(node, str):
            if not node.isascii() and _has_lone_surrogate(node):
                return JsonError("not valid Unicode (lone surrogate)", _path(chain))
        elif isinstance(node, (dict, list, tuple)):
            if depth >= max_depth:
                return JsonError(f"nested more than {max_depth} levels deep", _path(chain))
            if isinstance(node, _Dup):
                return JsonError(f"duplicate key {node.dup_key!r}", _path(chain))
            if isinstance(node, dict):
                for key, child in reversed(node.items()):
                    if not isinstance(key, str):
                        return JsonError(f"key {key!r} is not a string", _path(chain))
                    if not key.isascii() and _has_lone_surrogate(key):
                        return JsonError("not valid Unicode (lone surrogate)",
                                         _path((key, chain)))
                    stack.append((child, depth + 1, (key, chain)))
            else:
                stack.extend((child, depth + 1, (i, chain))
                             for i, child in reversed(list(enumerate(node))))
        elif isinstance(node, float):
            if not math.isfinite(node):
                return JsonError(f"number {node} is not JSON", _path(chain))
        elif node is not None and not isinstance(node, (bool, int)):
            return JsonError(f"a {type(node).__name__} is not JSON", _path(chain))
    return None


def _path(chain: Any) -> list[str | int]:
    """The list of keys of a `(key, parent chain)` chain, outermost first."""
    keys: list[str | int] = []
    while chain is not None:
        key, chain = chain
        keys.append(key)
    keys.reverse()
    return keys


def lone_surrogate_at(value: Any) -> list[str | int] | None:
    """The path of a string or key holding a lone surrogate (text that is not valid Unicode:
    it cannot be encoded, matched by RE2 or sent to a hook), or None. No recursion."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            if _has_lone_surrogate(node):
                return where
        elif isinstance(node, dict):
            for key, child in reversed(list(node.items())):
                if isinstance(key, str) and _has_lone_surrogate(key):
                    return where + [key]
                stack.append((child, where + [key]))
        elif isinstance(node, (list, tuple)):
            stack.extend((child, where + [i]) for i, child in reversed(list(enumerate(node))))
    return None


def without_lone_surrogates(text: str) -> str:
    """Each lone surrogate as U+FFFD (a high and low pair as the character they make)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _has_lone_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def loads(text: str, *, file: str | None = None) -> Any:
    """`decode`, its errors as ConfigError naming the file and the JSON path."""
    try:
        return decode(text)
    except JsonError as err:
        raise ConfigError(err.detail, file=file, path=err.path()) from None


def printable_path(where: list[str | int]) -> list[str | int]:
    """Keys with a lone surrogate escaped, so that the error text can be printed."""
    return [k.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(k, str) else k
            for k in where]


def read_bounded(path: Path, max_bytes: int, *, label: str | None = None) -> bytes:
    """A regular file's bytes, at most `max_bytes` of them: a FIFO (which would block), a
    device (`/dev/zero` never ends) or a larger file is a ConfigError, read no further."""
    label = label or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise ConfigError(f"cannot read: {err.strerror}", file=label) from None
    try:
        info = os.fstat(fd)
    except OSError as err:
        os.close(fd)
        raise ConfigError(f"cannot read: {err.strerror}", file=label) from None
    if not stat.S_ISREG(info.st_mode):  # before fdopen, which refuses a directory itself
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise ConfigError(f"cannot read: {what}", file=label)
    with os.fdopen(fd, "rb") as file:
        try:
            data = file.read(max_bytes + 1)
        except OSError as err:
            raise ConfigError(f"cannot read: {err.strerror}", file=label) from None
    if len(data) > max_bytes:
        size = max(info.st_size, len(data))
        raise ConfigError(f"file is {size} bytes, over the limit of {max_bytes}", file=label)
    return data


def load_file(path: Path, *, max_bytes: int, label: str | None = None) -> Any:
    label = label or str(path)
    data = read_bounded(path, max_bytes, label=label)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"not UTF-8 (byte {err.start})", file=label) from None
    return loads(text, file=label)


def convert(value: Any, type_: Any, *, where: list[str | int], file: str | None) -> Any:
    """msgspec.convert into a strict Struct; errors carry our JSON path."""
    try:
        return msgspec.convert(value, type_)
    except msgspec.ValidationError as err:
        raise _validation_error(str(err), where, file) from None


def _validation_error(text: str, where: list[str | int], file: str | None) -> ConfigError:
    message, _, at = text.partition(" - at `")
    at = at.rstrip("`")
    suffix = at[1:] if at.startswith("$") else ""
    base = json_path(where)
    if suffix.startswith("."):
        path = f"{base}{suffix}" if base else suffix[1:]
    else:
        path = f"{base}{suffix}"
    message = message.replace("Object contains unknown field", "unknown field")
    message = message.replace("Object missing required field", "missing required field")
    return ConfigError(message, file=file, path=path or "(root)")

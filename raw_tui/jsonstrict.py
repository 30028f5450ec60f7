"""Strict JSON: no comments, no trailing commas, no NaN, no duplicate keys; errors name a line
or a JSON path. Used for raw.json, tool.json and `call --args` (hook.json has its own
reader in hooks/manifest.py, with the same rules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from .errors import ConfigError, json_path


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


def _find_dup(value: Any, where: list[str | int]) -> tuple[list[str | int], str] | None:
    if isinstance(value, _Dup):
        return where, value.dup_key
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, child in items:
        found = _find_dup(child, where + [key])
        if found:
            return found
    return None


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
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ConfigError(f"invalid JSON at line {err.lineno} column {err.colno}: {err.msg}",
                          file=file) from None
    except ValueError as err:
        raise ConfigError(f"invalid JSON: {err}", file=file) from None
    found = _find_dup(value, [])
    if found:
        where, key = found
        raise ConfigError(f"duplicate key {key!r}", file=file, path=json_path(where) or "(root)")
    bad = lone_surrogate_at(value)
    if bad is not None:
        raise ConfigError("not valid Unicode (lone surrogate)", file=file,
                          path=json_path(printable_path(bad)) or "(root)")
    return value


def printable_path(where: list[str | int]) -> list[str | int]:
    """Keys with a lone surrogate escaped, so that the error text can be printed."""
    return [k.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(k, str) else k
            for k in where]


def load_file(path: Path, *, max_bytes: int | None = None, label: str | None = None) -> Any:
    label = label or str(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ConfigError(f"cannot read: {err.strerror}", file=label) from None
    if max_bytes is not None and len(data) > max_bytes:
        raise ConfigError(f"file is {len(data)} bytes, over the limit of {max_bytes}", file=label)
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

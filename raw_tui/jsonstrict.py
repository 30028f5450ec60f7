"""Strict JSON: no comments, no trailing commas, no NaN, no duplicate keys; errors name a line
or a JSON path. Used for raw.json, tool.json and hook.json alike."""

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
    return value


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

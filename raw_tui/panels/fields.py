"""Small checks every document part uses. Each raises `Invalid(at, message)`.

The checks are plain Python on purpose: a 200-item checklist is validated in well under a
millisecond, and ids are checked against a character set (no regular expression per id).
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from .errors import Invalid
from .limits import MAX_ID, MAX_ITEM_ID

At = tuple[str | int, ...]

_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_PANEL_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz")
_PANEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_ALLOWED_CONTROLS = frozenset("\n\t")


def is_item_id(value: Any) -> bool:
    """Block and item ids: ^[A-Za-z0-9_-]{1,32}$."""
    return isinstance(value, str) and 0 < len(value) <= MAX_ID and _ID_CHARS.issuperset(value)


def is_panel_id(value: Any) -> bool:
    """Panel ids: ^[a-z][a-z0-9_-]{0,31}$."""
    return (isinstance(value, str) and 0 < len(value) <= MAX_ID and value[0] in _PANEL_FIRST
            and _PANEL_CHARS.issuperset(value))


def has_control(text: str) -> bool:
    """Control characters (Unicode Cc) other than newline and tab."""
    if text.isprintable():
        return False
    for ch in text:
        code = ord(ch)
        if (code < 0x20 or 0x7F <= code <= 0x9F) and ch not in _ALLOWED_CONTROLS:
            return True
    return False


def obj(value: Any, at: At, allowed: frozenset[str], required: Iterable[str] = ()) -> dict:
    if not isinstance(value, dict):
        raise Invalid(at, "must be an object")
    if not allowed.issuperset(value):
        for key in value:
            if key not in allowed:
                raise Invalid(at + (key,), "unknown field")
    for key in required:
        if key not in value:
            raise Invalid(at + (key,), "required")
    return value


def array(value: Any, at: At, *, min_items: int = 0, max_items: int | None = None,
          what: str = "items") -> list:
    if not isinstance(value, list):
        raise Invalid(at, "must be an array")
    if len(value) < min_items:
        raise Invalid(at, f"needs at least {min_items} {what}")
    if max_items is not None and len(value) > max_items:
        raise Invalid(at, f"at most {max_items} {what}")
    return value


def text(value: Any, at: At, *, max_chars: int | None = None, max_bytes: int | None = None,
         min_chars: int = 0) -> str:
    if not isinstance(value, str):
        raise Invalid(at, "must be a string")
    if len(value) < min_chars:
        raise Invalid(at, "must not be empty" if min_chars == 1 else
                      f"at least {min_chars} characters")
    if max_chars is not None and len(value) > max_chars:
        raise Invalid(at, f"at most {max_chars} characters")
    if max_bytes is not None and len(value) * 4 > max_bytes:
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise Invalid(at, f"at most {max_bytes} bytes")
    if has_control(value):
        raise Invalid(at, "control characters other than newline and tab are not allowed")
    return value


_ITEM_CHARS = _ID_CHARS | {"."}


def item_ident(value: Any, at: At) -> str:
    """Item ids of checklists, steps, table rows and columns, timeline events: Raw's
    ^[A-Za-z0-9_.-]{1,64}$ (block ids stay ^[A-Za-z0-9_-]{1,32}$, as Raw's)."""
    if not (isinstance(value, str) and 0 < len(value) <= MAX_ITEM_ID
            and _ITEM_CHARS.issuperset(value)):
        raise Invalid(at, "must match ^[A-Za-z0-9_.-]{1,64}$")
    return value


def ident(value: Any, at: At) -> str:
    if not is_item_id(value):
        raise Invalid(at, "must match ^[A-Za-z0-9_-]{1,32}$")
    return value


def choice(value: Any, at: At, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise Invalid(at, "must be one of " + ", ".join(choices))
    return value


def boolean(value: Any, at: At) -> bool:
    if not isinstance(value, bool):
        raise Invalid(at, "must be true or false")
    return value


def integer(value: Any, at: At, *, minimum: int | None = None,
            maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(at, "must be an integer")
    if minimum is not None and value < minimum:
        raise Invalid(at, f"must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise Invalid(at, f"must be at most {maximum}")
    return value


def number(value: Any, at: At, *, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Invalid(at, "must be a finite number")
    if minimum is not None and value < minimum:
        raise Invalid(at, f"must be at least {minimum:g}")
    return value


def scalar(value: Any, at: At, *, max_chars: int) -> Any:
    """A cell or a value: a string, a finite number, true/false or null."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return number(value, at)
    if isinstance(value, str):
        return text(value, at, max_chars=max_chars)
    raise Invalid(at, "must be a string, a number, true/false or null")


def any_json(value: Any, at: At, depth: int = 0) -> None:
    """Any JSON value (for blocks of a kind this build does not know): strings checked for
    control characters, numbers finite, nesting bounded."""
    if depth > 32:
        raise Invalid(at, "nested too deeply")
    if isinstance(value, str):
        text(value, at)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or has_control(key):
                raise Invalid(at, "object keys must be strings without control characters")
            any_json(item, at + (key,), depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            any_json(item, at + (i,), depth + 1)
    elif isinstance(value, float) and not math.isfinite(value):
        raise Invalid(at, "must be a finite number")
    elif value is not None and not isinstance(value, (bool, int, float)):
        raise Invalid(at, "must be a JSON value")


_REF = frozenset({"path", "line"})


def ref(value: Any, at: At) -> dict:
    """Where an item points: `{path, line?}` (a file, a line of it from 1)."""
    from .limits import MAX_PATH

    obj(value, at, _REF, ("path",))
    text(value["path"], at + ("path",), min_chars=1, max_chars=MAX_PATH)
    if "line" in value:
        integer(value["line"], at + ("line",), minimum=1)
    return value


def ref_text(value: Any) -> str:
    """` (path:line)` for an item's ref, or nothing."""
    if not isinstance(value, dict) or not value.get("path"):
        return ""
    line = f":{value['line']}" if value.get("line") else ""
    return f" ({value['path']}{line})"


def unique(ids: Iterable[tuple[str, At]], what: str = "id") -> None:
    seen: set[str] = set()
    for value, at in ids:
        if value in seen:
            raise Invalid(at, f"duplicate {what} {value!r}")
        seen.add(value)


def utf8_clip(text: str, max_bytes: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `max_bytes` of UTF-8 (on a character boundary)."""
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes:
        return text
    room = max(max_bytes - len(ellipsis.encode()), 0)
    return data[:room].decode("utf-8", "ignore") + ellipsis

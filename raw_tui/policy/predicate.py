"""Predicates `{source, any, regex}` (docs/gate.md): parsing and evaluation.

The same evaluator serves `tools.rules[].when` and hook subscriptions' `when`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import re2

from raw_tui.protocol.errors import ConfigError, json_path
from raw_tui.jsonstrict import without_lone_surrogates

SOURCES = ("arguments", "effects")
RULE_SOURCES = SOURCES + ("observed",)  # a rule on what a sandboxed command did
PREDICATE_KEYS = ("source", "any", "regex")
MAX_SEGMENTS = 16
MAX_PATH_CHARS = 256
MAX_REGEX_BYTES = 1024

Segment = tuple[str, bool]  # (name, is_array): `name` or `name[*]`


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False
    return options


_OPTIONS = _re2_options()


@dataclass(frozen=True)
class Predicate:
    """A parsed, compiled predicate. Build it with `parse_predicate`."""

    source: str
    any: str
    regex: str
    segments: tuple[Segment, ...]
    _compiled: Any = field(default=None, compare=False, repr=False)

    def matches(self, value: Any) -> bool:
        """True if any string reached by the path matches the regex (unanchored). Never raises."""
        search = self._compiled.search
        try:
            for text in strings_at(value, self.segments):
                try:
                    found = search(text)
                except UnicodeEncodeError:  # a lone surrogate: still search the text around
                    found = search(without_lone_surrogates(text))  # it (never a silent miss)
                if found is not None:
                    return True
        except Exception:  # an exotic value the walk cannot read: no match
            return False
        return False

    def to_json(self) -> dict[str, str]:
        return {"source": self.source, "any": self.any, "regex": self.regex}


def strings_at(value: Any, segments: tuple[Segment, ...]):
    """Yield every string value the path reaches; absent fields and non-strings yield nothing."""
    level = [value]
    for name, is_array in segments:
        following = []
        for node in level:
            if not isinstance(node, dict) or name not in node:
                continue
            child = node[name]
            if is_array:
                if isinstance(child, (list, tuple)):
                    following.extend(child)
            else:
                following.append(child)
        if not following:
            return
        level = following
    for node in level:
        if isinstance(node, str):
            yield node


def parse_path(text: str) -> tuple[Segment, ...]:
    """Parse `files[*].path` into segments; ValueError with a reason on a bad path."""
    if not isinstance(text, str):
        raise ValueError("must be a string")
    if not text:
        raise ValueError("must not be empty")
    if len(text) > MAX_PATH_CHARS:
        raise ValueError(f"at most {MAX_PATH_CHARS} characters (got {len(text)})")
    parts = text.split(".")
    if len(parts) > MAX_SEGMENTS:
        raise ValueError(f"at most {MAX_SEGMENTS} segments (got {len(parts)})")
    segments: list[Segment] = []
    for part in parts:
        name, is_array = part, False
        if part.endswith("[*]"):
            name, is_array = part[:-3], True
        if not name or "[" in name or "]" in name:
            raise ValueError(f'bad segment "{part}": each segment is name or name[*]')
        segments.append((name, is_array))
    return tuple(segments)


def compile_regex(pattern: str):
    """Compile an RE2 pattern (1–1024 UTF-8 bytes); ValueError with RE2's reason if it can't."""
    if not isinstance(pattern, str):
        raise ValueError("must be a string")
    try:
        size = len(pattern.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError("must be valid UTF-8") from None
    if size == 0:
        raise ValueError("must not be empty")
    if size > MAX_REGEX_BYTES:
        raise ValueError(f"at most {MAX_REGEX_BYTES} bytes (got {size})")
    try:
        return re2.compile(pattern, _OPTIONS)
    except Exception as exc:  # re2.error carries a bytes message
        raise ValueError(f"not a valid RE2 pattern: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else str(exc)
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    return str(detail)


def parse_predicate(obj: Any, *, where: list, file: str | None = None,
                    sources: tuple[str, ...] = SOURCES) -> Predicate:
    """Parse a `when` object found at JSON path `where`; ConfigError names the exact path."""
    if not isinstance(obj, dict):
        raise ConfigError("must be an object", file=file, path=json_path(where))
    for key in obj:
        if key not in PREDICATE_KEYS:
            raise ConfigError("unknown key", file=file, path=json_path([*where, key]))
    for key in PREDICATE_KEYS:
        if key not in obj:
            raise ConfigError(f'missing key "{key}"', file=file, path=json_path(where))
    source = obj["source"]
    if not isinstance(source, str) or source not in sources:
        names = [f'"{s}"' for s in sources]
        listed = " or ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]
        raise ConfigError(f"must be {listed}", file=file,
                          path=json_path([*where, "source"]))
    try:
        segments = parse_path(obj["any"])
    except ValueError as exc:
        raise ConfigError(str(exc), file=file, path=json_path([*where, "any"])) from None
    try:
        compiled = compile_regex(obj["regex"])
    except ValueError as exc:
        raise ConfigError(str(exc), file=file, path=json_path([*where, "regex"])) from None
    return Predicate(source, obj["any"], obj["regex"], segments, compiled)

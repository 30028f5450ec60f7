"""JSON Schema for tool arguments and effects: checked once when loaded, validators prebuilt.

`pattern` and `patternProperties` run on RE2 here (stdlib `re` would let a tool schema carry
a ReDoS); only local `$ref` (`#/...`) is allowed; 2020-12 unless `$schema` names draft-07.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

import jsonschema
import jsonschema._utils
import re2
import referencing.exceptions
from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError, best_match

from ..protocol.errors import ConfigError, json_path
from ..jsonstrict import json_problem

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False

DRAFT7_IDS = {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"}


@lru_cache(maxsize=4096)
def compile_re2(pattern: str):
    return re2.compile(pattern, _RE2_OPTIONS)


def re2_error_text(err: Exception) -> str:
    arg = err.args[0] if err.args else err
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


def _search(pattern: str, text: str) -> bool:
    try:
        return compile_re2(pattern).search(text) is not None
    except UnicodeEncodeError:
        return False


def _pattern(validator, pattern, instance, schema) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


class _Re2AsRe:
    """Stands in for `re` inside `jsonschema._utils`, where `additionalProperties` and
    `unevaluatedProperties` look keys up in `patternProperties`: with stdlib `re` a model's key
    could run a ReDoS there, and a key RE2 and `re` judge differently (`$` before a trailing
    newline) would escape both `patternProperties` and `additionalProperties: false`."""

    @staticmethod
    def search(pattern: str, string: str):
        return string if _search(pattern, string) else None


jsonschema._utils.re = _Re2AsRe  # type: ignore[attr-defined]

Validator2020 = validators.extend(
    Draft202012Validator, {"pattern": _pattern, "patternProperties": _pattern_properties})
Validator7 = validators.extend(
    Draft7Validator, {"pattern": _pattern, "patternProperties": _pattern_properties})

_FORMATS = FormatChecker()


def _walk_refs_and_patterns(node: Any, where: list[str | int]) -> Iterator[tuple[str, list, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                yield "ref", where + [key], value
            elif key == "$id" and isinstance(value, str):
                yield "id", where + [key], value
            elif key == "pattern" and isinstance(value, str):
                yield "pattern", where + [key], value
            elif key == "patternProperties" and isinstance(value, dict):
                for pat in value:
                    yield "pattern", where + [key, pat], pat
            yield from _walk_refs_and_patterns(value, where + [key])
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk_refs_and_patterns(value, where + [i])


def build_validator(schema: Any, *, where: list[str | int], file: str | None,
                    require_object: bool = True):
    """Check a schema against its meta-schema and the house rules; return a validator."""
    if not isinstance(schema, dict):
        raise ConfigError("must be a JSON Schema object", file=file, path=json_path(where))
    problem = json_problem(schema)  # a schema from elsewhere (an MCP server) is bounded too
    if problem is not None:
        raise ConfigError(problem.detail, file=file,
                          path=json_path(where + (problem.where or [])[:8])) from None
    dialect = schema.get("$schema")  # may be anything: the meta-schema check says what
    cls = Validator7 if isinstance(dialect, str) and dialect in DRAFT7_IDS else Validator2020
    _check_against_meta_schema(cls, schema, where, file)
    found = list(_walk_refs_and_patterns(schema, list(where)))
    refs = []
    for kind, at, value in found:
        if kind == "ref" and not value.startswith("#"):
            raise ConfigError(f"only local $ref (#/...) is allowed, got {value!r}",
                              file=file, path=json_path(at))
        if kind == "ref":
            refs.append((at, value))
        if kind == "pattern":
            try:
                compile_re2(value)
            except Exception as err:  # re2.error is a plain Exception with a bytes message
                raise ConfigError(f"pattern RE2 cannot compile: {re2_error_text(err)}",
                                  file=file, path=json_path(at)) from None
    if require_object and schema.get("type") != "object":
        raise ConfigError('must have type "object"', file=file, path=json_path(where + ["type"]))
    validator = cls(schema, format_checker=_FORMATS)
    nested_id = any(kind == "id" and len(at) > len(where) + 1 for kind, at, _ in found)
    if not nested_id:  # a nested $id moves the base its refs resolve from
        _check_refs_resolve(validator, refs, file)
    return validator


def _check_refs_resolve(validator, refs: list[tuple[list, str]], file: str | None) -> None:
    """A local `$ref` that points nowhere would fail every call that reaches it: refuse it
    when the schema loads (no nested `$id` here, so every ref resolves from the root)."""
    for at, ref in refs:
        try:
            validator._resolver.lookup(ref)
        except referencing.exceptions.Unresolvable:
            raise ConfigError(f"{ref!r} does not resolve in this schema", file=file,
                              path=json_path(at)) from None


def _check_against_meta_schema(cls, schema: dict, where: list[str | int],
                               file: str | None) -> None:
    """Check a schema against its meta-schema. Valid schemas are remembered by digest in the
    user's cache (validity is a pure function of the schema and the jsonschema version), so
    a start-up does not pay ~6 ms per tool schema again."""
    digest = _schema_digest(cls, schema)
    if digest in _known_valid():
        return
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as err:
        path = json_path(where + list(err.absolute_path))
        raise ConfigError(f"invalid schema: {err.message}", file=file, path=path) from None
    except RecursionError:  # a legal depth of JSON can still be too deep for the check
        raise ConfigError("invalid schema: nested too deeply to check", file=file,
                          path=json_path(where)) from None
    _remember_valid(digest)


_valid_digests: set[str] | None = None


def _cache_file():
    from pathlib import Path

    import platformdirs

    return Path(platformdirs.user_cache_dir("raw-tui", appauthor=False)) / "valid-schemas"


def _schema_digest(cls, schema: dict) -> str:
    import json

    data = json.dumps([cls.META_SCHEMA.get("$id", ""), _jsonschema_build(), schema],
                      sort_keys=True, separators=(",", ":"))
    return _sha256()(data.encode()).hexdigest()


def _sha256():
    """CPython's own sha256: importing hashlib loads OpenSSL's binding, about 3 ms of every
    start-up for one digest."""
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:
        try:
            from _sha2 import sha256  # CPython 3.12+
        except ImportError:
            from hashlib import sha256
    return sha256


@lru_cache(maxsize=1)
def _jsonschema_build() -> str:
    """Changes when jsonschema is upgraded (importlib.metadata would cost ~10 ms here)."""
    import os

    stat = os.stat(validators.__file__)
    return f"{validators.__file__}:{stat.st_size}:{stat.st_mtime_ns}"


def _known_valid() -> set[str]:
    global _valid_digests
    if _valid_digests is None:
        try:
            _valid_digests = set(_cache_file().read_text().split())
        except OSError:
            _valid_digests = set()
    return _valid_digests


def _remember_valid(digest: str) -> None:
    _known_valid().add(digest)
    try:
        path = _cache_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as f:  # one line per digest: a torn write is only a miss
            f.write(digest + "\n")
    except OSError:
        pass


def first_error(validator, instance: Any) -> str | None:
    """`$.path: message` of the most relevant error, or None when the instance is valid.
    A reference that cannot be resolved, or a value too deep for the schema's recursion, is an
    error too (never an exception)."""
    try:
        error = best_match(validator.iter_errors(instance))
    except referencing.exceptions.Unresolvable as err:
        return f"$: the schema cannot be applied: {err}"
    except RecursionError:  # a recursive $ref fed a deep value, or a long chain of refs
        return "$: nested too deeply for the schema"
    if error is None:
        return None
    return f"{error.json_path}: {error.message}"

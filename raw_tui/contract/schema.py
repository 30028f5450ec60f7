"""JSON Schema for tool arguments and effects: checked once when loaded, validators prebuilt.

`pattern` and `patternProperties` run on RE2 here (stdlib `re` would let a tool schema carry
a ReDoS); only local `$ref` (`#/...`) is allowed; 2020-12 unless `$schema` names draft-07.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

import jsonschema
import re2
from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError, best_match

from ..errors import ConfigError, json_path

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


Validator2020 = validators.extend(
    Draft202012Validator, {"pattern": _pattern, "patternProperties": _pattern_properties})
Validator7 = validators.extend(
    Draft7Validator, {"pattern": _pattern, "patternProperties": _pattern_properties})

_FORMATS = FormatChecker()


def _walk_refs_and_patterns(node: Any, where: list[str | int]) -> Iterator[tuple[str, list, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield "ref", where + [key], value
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
    cls = Validator7 if schema.get("$schema") in DRAFT7_IDS else Validator2020
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as err:
        path = json_path(where + list(err.absolute_path))
        raise ConfigError(f"invalid schema: {err.message}", file=file, path=path) from None
    for kind, at, value in _walk_refs_and_patterns(schema, list(where)):
        if kind == "ref" and not value.startswith("#"):
            raise ConfigError(f"only local $ref (#/...) is allowed, got {value!r}",
                              file=file, path=json_path(at))
        if kind == "pattern":
            try:
                compile_re2(value)
            except Exception as err:  # re2.error is a plain Exception with a bytes message
                raise ConfigError(f"pattern RE2 cannot compile: {re2_error_text(err)}",
                                  file=file, path=json_path(at)) from None
    if require_object and schema.get("type") != "object":
        raise ConfigError('must have type "object"', file=file, path=json_path(where + ["type"]))
    return cls(schema, format_checker=_FORMATS)


def first_error(validator, instance: Any) -> str | None:
    """`$.path: message` of the most relevant error, or None when the instance is valid."""
    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    return f"{error.json_path}: {error.message}"

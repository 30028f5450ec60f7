"""Strict argument schemas for the built-in tools.

The model-facing `input_schema` of the base tools is kept minimal (every token is paid on
every request); the full shape lives here and `validate_args` checks it first, so
validation is as strict as a complete schema would be.
"""

from __future__ import annotations

from typing import Any

from ..contract.schema import build_validator, first_error

_S = {"type": "string"}
_I = {"type": "integer"}

SCHEMAS: dict[str, dict[str, Any]] = {
    "read_file": {
        "type": "object",
        "properties": {"path": _S, "offset": _I, "limit": _I},
        "required": ["path"], "additionalProperties": False,
    },
    "write_file": {
        "type": "object",
        "properties": {
            "operations": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "mode": {"enum": ["overwrite", "append", "replace_text", "replace_lines"]},
                    "path": _S, "content": _S, "old_text": _S, "new_text": _S,
                    "start_line": _I, "end_line": _I, "expected_sha256": _S,
                },
                "required": ["mode", "path"]}},
            "patch": _S,
        },
        "additionalProperties": False,
    },
    "bash": {
        "type": "object",
        "properties": {"commands": {"type": "array", "items": {
            "type": "object",
            "properties": {"command": _S, "timeout_ms": _I},
            "required": ["command"]}}},
        "required": ["commands"], "additionalProperties": False,
    },
}

_validators: dict[str, Any] = {}


def strict_error(tool: str, args: Any) -> str | None:
    """`$.path: message` of the first error against the tool's strict schema, or None."""
    if tool not in _validators:
        _validators[tool] = build_validator(SCHEMAS[tool], where=[tool], file=None)
    return first_error(_validators[tool], args)

"""What a hook answers on stdout (docs/hooks.md, "The protocol").

- empty stdout (whitespace only) → continue;
- else exactly one JSON object with only `decision` (`continue` | `deny`, gate events only),
  `reason` (≤1024 bytes) and `message` (≤512 bytes, shown to the user).
Anything else is `invalid_output`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import msgspec

from ..jsonstrict import JsonError, decode
from ..protocol.termsafe import escape_controls

MAX_REASON_BYTES = 1024
MAX_MESSAGE_BYTES = 512


class _ResponseJson(msgspec.Struct, forbid_unknown_fields=True):
    decision: Literal["continue", "deny"] | msgspec.UnsetType = msgspec.UNSET
    reason: str | msgspec.UnsetType = msgspec.UNSET
    message: str | msgspec.UnsetType = msgspec.UNSET


@dataclass(frozen=True)
class Response:
    decision: str  # "continue" | "deny"
    reason: str | None = None
    message: str | None = None


class InvalidOutput(ValueError):
    """stdout is not a valid response; `str()` says why, in one line (a key the hook wrote
    with a newline in it is shown escaped)."""

    def __init__(self, reason: str) -> None:
        super().__init__(escape_controls(reason, keep_lines=False))


def parse_response(stdout: bytes, *, gate: bool) -> Response:
    """Parse a hook's stdout for a gate event (`gate`) or a notification event."""
    if not stdout.strip():
        return Response("continue")
    try:  # strict (a duplicate key would make the answer depend on the parser), bounded
        doc = msgspec.convert(decode(stdout), _ResponseJson, strict=True)
    except JsonError as exc:
        raise InvalidOutput(f"{exc.path()}: {exc.detail}" if exc.where else exc.detail) from None
    except msgspec.ValidationError as exc:
        raise InvalidOutput(str(exc)) from None
    if doc.decision is not msgspec.UNSET and not gate:
        raise InvalidOutput("decision is allowed only on UserPromptSubmit and PreToolUse")
    reason = _bounded(doc.reason, "reason", MAX_REASON_BYTES)
    message = _bounded(doc.message, "message", MAX_MESSAGE_BYTES)
    decision = "continue" if doc.decision is msgspec.UNSET else doc.decision
    return Response(decision, reason, message)


def _bounded(value: str | msgspec.UnsetType, field: str, limit: int) -> str | None:
    if value is msgspec.UNSET:
        return None
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise InvalidOutput(f"{field} is longer than {limit} bytes ({size})")
    return value

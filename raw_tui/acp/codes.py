"""JSON-RPC error codes of Raw's ACP mapping (docs/acp.md), one place."""

from __future__ import annotations

from ..protocol import errors

UNKNOWN_SESSION = -32001
BUSY = -32002
NOT_NEGOTIATED = -32003
UNKNOWN_TOOL = -32004
TIMEOUT = -32005
CANCELLED = -32006
UPSTREAM = -32007
DUPLICATE = -32008
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

# A panel action's engine code -> its JSON-RPC code (docs/acp.md).
ACTION_CODES = {
    errors.BUSY: BUSY,
    errors.TOOL_DENIED: UNKNOWN_TOOL, errors.TOOL_NOT_EXPOSED: UNKNOWN_TOOL,
    errors.APPROVAL_DENIED: UNKNOWN_TOOL, errors.APPROVAL_REQUIRED: UNKNOWN_TOOL,
    errors.HOOK_DENIED: UNKNOWN_TOOL, errors.HOOK_ERROR: UNKNOWN_TOOL,
    errors.STALE_PANEL: INVALID_PARAMS, errors.INVALID_ACTION: INVALID_PARAMS,
    errors.PANEL_UNKNOWN: INVALID_PARAMS, errors.PROMPT_ACTION: INVALID_PARAMS,
    errors.CANCELLED: CANCELLED,
    errors.TIMEOUT: TIMEOUT,
}


def error(code: int, message: str, data=None):
    """The SDK's RequestError (which the router turns into a JSON-RPC error)."""
    from acp import RequestError

    return RequestError(code, message, data)

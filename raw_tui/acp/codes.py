"""JSON-RPC error codes of Raw's ACP mapping (docs/acp.md), one place."""

from __future__ import annotations

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
    "busy": BUSY,
    "tool_denied": UNKNOWN_TOOL, "tool_not_exposed": UNKNOWN_TOOL,
    "approval_denied": UNKNOWN_TOOL, "approval_required": UNKNOWN_TOOL,
    "hook_denied": UNKNOWN_TOOL, "hook_error": UNKNOWN_TOOL,
    "stale_panel": INVALID_PARAMS, "invalid_action": INVALID_PARAMS,
    "panel_unknown": INVALID_PARAMS, "prompt_action": INVALID_PARAMS,
    "cancelled": CANCELLED,
    "timeout": TIMEOUT,
}


def error(code: int, message: str, data=None):
    """The SDK's RequestError (which the router turns into a JSON-RPC error)."""
    from acp import RequestError

    return RequestError(code, message, data)

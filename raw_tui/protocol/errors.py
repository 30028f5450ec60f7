"""Errors are values with codes. Every code of the contract lives here, once."""

from __future__ import annotations

from .termsafe import escape_controls

# Dispatch (docs/gate.md)
TOOL_NOT_EXPOSED = "tool_not_exposed"
TOOL_DENIED = "tool_denied"
INVALID_ARGUMENTS = "invalid_arguments"
INVALID_EFFECTS = "invalid_effects"
EFFECTS_ERROR = "effects_error"
HOOK_DENIED = "hook_denied"
HOOK_ERROR = "hook_error"
APPROVAL_REQUIRED = "approval_required"
APPROVAL_DENIED = "approval_denied"
APPROVAL_ERROR = "approval_error"
TOOL_ERROR = "tool_error"
CANCELLED = "cancelled"

# A tool call's result with one of these codes was stopped by the gate, not by the tool
DENIAL_CODES = (TOOL_DENIED, HOOK_DENIED, HOOK_ERROR, APPROVAL_DENIED, APPROVAL_REQUIRED,
                APPROVAL_ERROR, TOOL_NOT_EXPOSED)

# bash's sandbox (docs/sandbox.md)
SANDBOX_UNAVAILABLE = "sandbox_unavailable"
SANDBOX_CONFLICT = "sandbox_conflict"
SANDBOX_TOO_LARGE = "sandbox_too_large"
SANDBOX_UNSUPPORTED = "sandbox_unsupported"

# Panels (docs/panels.md)
PANEL_INVALID = "panel_invalid"
PANEL_TOO_LARGE = "panel_too_large"
PANEL_UNDECLARED = "panel_undeclared"
PANEL_NOT_OWNED = "panel_not_owned"
PANEL_UNKNOWN = "panel_unknown"
PANEL_REVISION_CONFLICT = "panel_revision_conflict"
PANEL_RATE_LIMITED = "panel_rate_limited"
PANEL_LIMIT = "panel_limit"
PANEL_CLOSED_CONTEXT = "panel_closed_context"

# Interactions (docs/interactions.md)
INTERACTION_INVALID = "interaction_invalid"
INTERACTION_UNAVAILABLE = "interaction_unavailable"
INTERACTION_CONFLICT = "interaction_conflict"

# Hook runner failures (docs/hooks.md)
HOOK_SPAWN = "spawn"
HOOK_TIMEOUT = "timeout"
HOOK_EXIT = "exit"
HOOK_INVALID_OUTPUT = "invalid_output"
HOOK_OUTPUT_TOO_LARGE = "output_too_large"
HOOK_INPUT_TOO_LARGE = "input_too_large"
HOOK_ABORTED = "aborted"

# write_file
PATCH_REPEATED_TARGET = "patch_repeated_target"
# a patch that cannot be applied as it stands (Raw's code); the message starts with the reason,
# one of the PATCH_* reasons below (Raw's words too)
PATCH_PREFLIGHT_FAILED = "patch_preflight_failed"
PATCH_CONTEXT_NOT_FOUND = "patch_context_not_found"
PATCH_AMBIGUOUS_CONTEXT = "patch_ambiguous_context"
PATCH_SYMLINK_PATH = "patch_symlink_path"
PATCH_PARENT_NOT_DIRECTORY = "patch_parent_not_directory"
PATCH_BINARY_SOURCE = "patch_binary_source"
PATCH_INVALID_UTF8 = "patch_invalid_utf8"
PATCH_DESTINATION_EXISTS = "patch_destination_exists"

# MCP tools (docs/mcp.md): a server's failure, a call that failed, a result that cannot be
# handed on (content of an unsupported type, too large)
MCP_ERROR = "mcp_error"
MCP_CALL_ERROR = "mcp_call_error"
UNSUPPORTED_CONTENT = "unsupported_content"
RESULT_TOO_LARGE = "result_too_large"

# Saved history (raw_tui/session/store.py): the database cannot be opened or used
HISTORY_ERROR = "history_error"

# Session hosts (raw_tui/host/paths.py): the socket directory is not ours, not 0700, a symlink
SOCKET_DIR_ERROR = "socket_dir"
# ... the host did not start; its start-up report: the configuration is invalid, the session is
# live in another host already; an error without a code of its own
HOST_FAILED = "host_failed"
HOST_CONFIG = "config"
SESSION_LIVE = "live"
ERROR = "error"
# a command to a host the client is no longer attached to; a command the host failed to run
DETACHED = "detached"
INTERNAL_ERROR = "internal_error"

# Opening a session: `--resume`/`attach` names no saved session; the session could not start
UNKNOWN_SESSION = "unknown_session"
NOT_LIVE = "not_live"  # `attach`: the session named (or this directory's) is not live
SESSION_CLOSED = "session_closed"

# Model providers (raw_tui/models): a request failed (HTTP status, connection, timeout, garbage)
MODEL_ERROR = "model_error"

# Session commands (raw_tui/protocol/commands.py): a retry or an edit with no prompt to replace; a
# switch to an agent or a model alias the config does not define
REWIND_UNAVAILABLE = "rewind_unavailable"
NOTHING_TO_UNDO = "nothing_to_undo"  # an Undo command with no change to take back (docs/checkpoints.md)
UNKNOWN_AGENT = "unknown_agent"
UNKNOWN_MODEL = "unknown_model"
BUSY = "busy"  # a command that needs an idle session while a turn runs
CLOSED = "closed"  # a command to a session that is closed
TRUNCATED = "truncated"  # run_end: the turn's last reply hit the model's output limit
MAX_STEPS = "max_steps"  # run_end: the turn stopped at the agent's `max_steps`

# Panel actions run in a client (docs/acp.md): Raw's codes, which ACP maps; a client's
# callback that timed out
STALE_PANEL = "stale_panel"
INVALID_ACTION = "invalid_action"
PROMPT_ACTION = "prompt_action"
TIMEOUT = "timeout"

# Client tools (`_raw/tool/call`, docs/decisions.md): the client did not answer in time; the
# client failed (an error reply, a closed connection, a reply that is not `{isError, content}`)
CALLBACK_TIMEOUT = "callback_timeout"
CALLBACK_ERROR = "callback_error"



class RawError(Exception):
    """An error with a contract code and a one-line message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigError(Exception):
    """A configuration error: names the file and the JSON path. Commands exit 2 on it."""

    def __init__(self, message: str, *, file: str | None = None, path: str = "") -> None:
        self.file = file
        self.path = path
        self.detail = message
        super().__init__(self.line())

    def line(self) -> str:
        """`FILE: PATH: DETAIL`, one line: a control character (a newline in a key) is
        shown escaped (`\\x0a`)."""
        where = ""
        if self.file:
            where = f"{self.file}: "
        if self.path:
            where += f"{self.path}: "
        return escape_controls(f"{where}{self.detail}", keep_lines=False)


def json_path(parts: list[str | int] | tuple[str | int, ...]) -> str:
    """Render a path as `agents.coder.tools.rules[2].when.any`."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out:
            out += f".{part}"
        else:
            out = str(part)
    return out

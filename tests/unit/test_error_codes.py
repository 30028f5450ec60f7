"""Every error code lives in raw_tui/protocol/errors.py, once: no other module writes one as a
literal (a reply's code, a result's code, a code compared, a RawError's code), and the codes
on the wire are the ones clients already read."""

from __future__ import annotations

import ast
from pathlib import Path

import raw_tui
from raw_tui.protocol import errors

ROOT = Path(raw_tui.__file__).parent

# what each code reads on the wire (the JSONL stream, replies, tool results, ACP data)
WIRE = {
    "BUSY": "busy", "CLOSED": "closed", "SESSION_CLOSED": "session_closed",
    "INTERNAL_ERROR": "internal_error", "DETACHED": "detached", "HOST_FAILED": "host_failed",
    "HOST_CONFIG": "config", "SESSION_LIVE": "live", "ERROR": "error",
    "UNKNOWN_SESSION": "unknown_session", "NOT_LIVE": "not_live", "TRUNCATED": "truncated", "MCP_ERROR": "mcp_error",
    "MCP_CALL_ERROR": "mcp_call_error", "UNSUPPORTED_CONTENT": "unsupported_content",
    "RESULT_TOO_LARGE": "result_too_large", "STALE_PANEL": "stale_panel",
    "INVALID_ACTION": "invalid_action", "PROMPT_ACTION": "prompt_action", "TIMEOUT": "timeout",
    "PATCH_CONTEXT_NOT_FOUND": "patch_context_not_found",
    "PATCH_AMBIGUOUS_CONTEXT": "patch_ambiguous_context",
    "PATCH_SYMLINK_PATH": "patch_symlink_path",
    "PATCH_PARENT_NOT_DIRECTORY": "patch_parent_not_directory",
    "PATCH_BINARY_SOURCE": "patch_binary_source", "PATCH_INVALID_UTF8": "patch_invalid_utf8",
    "PATCH_DESTINATION_EXISTS": "patch_destination_exists",
    "CALLBACK_TIMEOUT": "callback_timeout", "CALLBACK_ERROR": "callback_error",
}


def test_the_codes_read_on_the_wire_as_before():
    assert {name: getattr(errors, name, None) for name in WIRE} == WIRE
    assert set(errors.DENIAL_CODES) == {"tool_denied", "hook_denied", "hook_error",
                                        "approval_denied", "approval_required",
                                        "approval_error", "tool_not_exposed"}


def _is_code(node: ast.AST) -> bool:
    """`x.code`, `code`, `reply.code or ...`: an expression that holds an error code."""
    if isinstance(node, ast.Attribute):
        return node.attr == "code"
    if isinstance(node, ast.Name):
        return node.id == "code"
    if isinstance(node, ast.BoolOp):
        return any(_is_code(value) for value in node.values)
    return False


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BoolOp):
        return next(filter(None, map(_literal, node.values)), None)
    if isinstance(node, ast.JoinedStr) and node.values:  # f"patch_…: {detail}"
        head = _literal(node.values[0])
        return head.split(":")[0] if head and ":" in head else None
    return None


CODE_CALLS = {"RawError", "error_result", "_error", "_stop", "Stop", "PatchApplyError",
              "HostStartError", "McpFailure", "__init__"}  # (a RawError's super().__init__)


def literal_codes(tree: ast.AST, codes: set[str]) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        candidates: list[ast.AST | None] = []
        if isinstance(node, ast.Call):
            candidates += [k.value for k in node.keywords if k.arg == "code"]
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in CODE_CALLS and node.args:
                candidates += node.args[:2] if name in ("Stop", "_stop") else node.args[:1]
                candidates += node.args[1:2] if name in CODE_CALLS else []
            if name == "TurnOutcome" and len(node.args) > 1:
                candidates.append(node.args[1])
        elif isinstance(node, ast.Compare) and _is_code(node.left):
            candidates += node.comparators
            for comparator in node.comparators:
                if isinstance(comparator, (ast.Tuple, ast.List, ast.Set)):
                    candidates += comparator.elts
        elif isinstance(node, ast.Assign) and any(_is_code(t) for t in node.targets):
            candidates.append(node.value)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if _literal(key) == "code":
                    candidates.append(value)
        for candidate in candidates:
            text = _literal(candidate)
            if text is not None and text in codes:
                found.append((node.lineno, text))
    return found


def test_no_module_but_errors_py_writes_a_code_as_a_literal():
    codes = {value for name, value in vars(errors).items()
             if name.isupper() and isinstance(value, str)}
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == ROOT / "protocol" / "errors.py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        found += [f"{path.relative_to(ROOT)}:{line}: {text!r}"
                  for line, text in literal_codes(tree, codes)]
    assert not found, f"error codes written as literals, not errors.py's names: {found}"


def test_the_check_finds_a_literal_code():
    codes = {"busy", "tool_error", "patch_binary_source"}
    source = '''
Reply(ok=False, code="busy")
if reply.code == "busy": pass
raise RawError("tool_error", "x")
raise RawError(PATCH_PREFLIGHT_FAILED, f"patch_binary_source: {x}")
{"isError": True, "code": "tool_error"}
super().__init__("busy", message)
'''
    assert sorted(text for _, text in literal_codes(ast.parse(source), codes)) == \
        sorted(["busy", "busy", "tool_error", "patch_binary_source", "tool_error", "busy"])

"""Bus events → ACP `session/update` payloads (DECISIONS.md §11, MCP-ACP.md §2.2, §2.4, §5).

Pure functions: each takes an engine event (and what it needs to know of the session) and
returns SDK update objects. Nothing here sends anything.
"""

from __future__ import annotations

import os
from typing import Any

import acp
from acp.schema import PermissionOption, ToolCallLocation, ToolCallUpdate

from .. import bus as ev
from ..hooks.dispatcher import format_receipt

READ_TOOLS = frozenset({"builtin/read_file"})
EDIT_TOOLS = frozenset({"builtin/write_file"})

# Raw's two options; kinds always sent (Toad binds its keys to them).
PERMISSION_OPTIONS = (("allow", "Allow once", "allow_once"), ("deny", "Deny", "reject_once"))

PLAN_STATUS = {"done": "completed", "skipped": "completed", "blocked": "pending",
               "failed": "pending", "in_progress": "in_progress", "pending": "pending"}


def tool_kind(identity: str) -> str:
    if identity in READ_TOOLS:
        return "read"
    if identity in EDIT_TOOLS:
        return "edit"
    return "execute"


def receipt_line(event: ev.PanelReceipt) -> str:
    """The CLI's receipt line: `▸ Todo r5 · 3/7 · Fix the API` (or `… rejected: CODE …`)."""
    title = " ".join(event.title.split())
    if isinstance(event.error, ev.PanelError):
        return f"▸ {title} rejected: {event.error.code} {' '.join(event.error.message.split())}"
    summary = " ".join(event.summary.split())
    return f"▸ {title} r{event.revision}{' · ' + summary if summary else ''}"


def thought(event: ev.HookEvent | ev.PanelReceipt):
    text = format_receipt(event) if isinstance(event, ev.HookEvent) else receipt_line(event)
    return acp.update_agent_thought_text(text + "\n")


def _abs(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, path))


def locations(event: ev.ToolCall | ev.ApprovalRequest, cwd: str) -> list[ToolCallLocation]:
    """Absolute paths the call touches: the effects' files (write_file), or `path`."""
    paths: list[str] = []
    effects = event.effects if event.effects is not ev._UNSET else None
    if isinstance(effects, dict) and isinstance(effects.get("files"), list):
        paths = [f["path"] for f in effects["files"]
                 if isinstance(f, dict) and isinstance(f.get("path"), str)]
    elif isinstance(event.arguments, dict) and isinstance(event.arguments.get("path"), str):
        paths = [event.arguments["path"]]
    return [ToolCallLocation(path=_abs(p, cwd)) for p in dict.fromkeys(paths)]


def diffs(event: ev.ApprovalRequest, cwd: str) -> list[Any]:
    """`diff` contents from the engine's approval preview (absolute paths; a new file has
    `oldText: ""` so Toad opens its diff screen). Empty when the event has no preview or a
    file's texts were too large to carry."""
    preview = getattr(event, "preview", None)
    files = getattr(preview, "files", None) or []
    out = []
    for item in files:
        after = getattr(item, "after", None)
        if after is None:
            continue
        before = getattr(item, "before", None)
        out.append(acp.tool_diff_content(_abs(item.path, cwd), after,
                                         old_text=before if before is not None else ""))
    return out


def message_text(text: str):
    return acp.update_agent_message_text(text)


def user_text(text: str):
    return acp.update_user_message_text(text)


def tool_call(event: ev.ToolCall, cwd: str):
    return acp.start_tool_call(event.call_id, event.name, kind=tool_kind(event.identity),
                               status="pending", raw_input=event.arguments,
                               locations=locations(event, cwd) or None)


def permission_request(event: ev.ApprovalRequest, cwd: str) -> tuple[ToolCallUpdate, list]:
    """The `toolCall` and `options` of `session/request_permission` for an `ask`."""
    meta: dict[str, Any] = {"identity": event.identity}
    if event.effects is not ev._UNSET:
        meta["effects"] = event.effects
    if event.rule is not ev._UNSET:
        meta["rule_index"] = event.rule
    content = diffs(event, cwd)
    call = ToolCallUpdate(tool_call_id=event.call_id, title=event.name,
                          kind=tool_kind(event.identity), status="pending",
                          raw_input=event.arguments, content=content or None,
                          locations=locations(event, cwd) or None, field_meta={"raw": meta})
    options = [PermissionOption(option_id=oid, name=name, kind=kind)
               for oid, name, kind in PERMISSION_OPTIONS]
    return call, options


def tool_result(event: ev.ToolResultEvent):
    output: dict[str, Any] = {"isError": event.isError, "content": event.content}
    if event.code is not ev._UNSET:
        output["code"] = event.code
    if event.truncated is not ev._UNSET:
        output["truncated"] = event.truncated
    text = "\n".join(b.get("text", "") for b in event.content
                     if isinstance(b, dict) and b.get("type") == "text")
    content = [acp.tool_content(acp.text_block(text))] if text else None
    return acp.update_tool_call(event.call_id, status="failed" if event.isError else "completed",
                                raw_output=output, content=content)


def in_progress(call_id: str):
    return acp.update_tool_call(call_id, status="in_progress")


def plan(document: Any):
    """A standard `plan` from a panel document: its first checklist flattened depth-first;
    a closed panel (no document) gives no entries."""
    entries = []
    checklist = None
    if isinstance(document, dict):
        checklist = next((b for b in document.get("blocks") or []
                          if isinstance(b, dict) and b.get("kind") == "checklist"), None)
    for item in _flatten((checklist or {}).get("items") or []):
        entries.append(acp.plan_entry(str(item.get("label") or item.get("id") or ""),
                                      priority="medium",
                                      status=PLAN_STATUS.get(item.get("status"), "pending")))
    return acp.update_plan(entries)


def _flatten(items: list[Any]):
    for item in items:
        if isinstance(item, dict):
            yield item
            yield from _flatten(item.get("items") or [])


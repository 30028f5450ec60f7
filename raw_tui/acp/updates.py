"""Bus events → ACP `session/update` payloads (docs/acp.md, docs/acp.md).

Pure functions returning the wire JSON (camelCase dicts, as the ACP schema names them): a
turn sends a few messages per tool call, and building SDK models for each costs more than
the call itself. The SDK's client parses them into its models like any others.
"""

from __future__ import annotations

import os
from typing import Any

from ..protocol import bus as ev
from ..hooks.dispatcher import format_receipt

READ_TOOLS = frozenset({"builtin/read_file"})
EDIT_TOOLS = frozenset({"builtin/write_file"})

# Raw's two options; kinds always sent (Toad binds its keys to them).
PERMISSION_OPTIONS = [{"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
                      {"optionId": "deny", "name": "Deny", "kind": "reject_once"}]

PLAN_STATUS = {"done": "completed", "skipped": "completed", "blocked": "pending",
               "failed": "pending", "in_progress": "in_progress", "pending": "pending"}


def tool_kind(identity: str) -> str:
    if identity in READ_TOOLS:
        return "read"
    if identity in EDIT_TOOLS:
        return "edit"
    return "execute"


def _text(kind: str, text: str) -> dict[str, Any]:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


def message_text(text: str) -> dict[str, Any]:
    return _text("agent_message_chunk", text)


def user_text(text: str) -> dict[str, Any]:
    return _text("user_message_chunk", text)


def warning(message: str) -> dict[str, Any]:
    return _text("agent_thought_chunk", f"Warning: {' '.join(message.split())}\n")


def compacting(tokens: int) -> dict[str, Any]:
    """A compaction starts (Raw's progress line)."""
    return _text("agent_thought_chunk", f"Compacting context ({tokens} estimated input tokens).\n")


def compacted(status: str) -> dict[str, Any]:
    """A compaction ended: `compacted`, `noop`, `cancelled` or `failed`."""
    return _text("agent_thought_chunk", f"Context compact {status}.\n")


def receipt_line(event: ev.PanelReceipt) -> str:
    """The CLI's receipt line: `▸ Todo r5 · 3/7 · Fix the API` (or `… rejected: CODE …`)."""
    title = " ".join(event.title.split())
    if isinstance(event.error, ev.ReceiptError):
        return f"▸ {title} rejected: {event.error.code} {' '.join(event.error.message.split())}"
    summary = " ".join(event.summary.split())
    return f"▸ {title} r{event.revision}{' · ' + summary if summary else ''}"


def thought(event: ev.HookEvent | ev.PanelReceipt) -> dict[str, Any]:
    text = format_receipt(event) if isinstance(event, ev.HookEvent) else receipt_line(event)
    return _text("agent_thought_chunk", text + "\n")


def _abs(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, path))


def locations(event: ev.ToolCall | ev.ApprovalRequest, cwd: str) -> list[dict[str, str]]:
    """Absolute paths the call touches: the effects' files (write_file), or `path`."""
    paths: list[str] = []
    effects = ev.given(effects=event.effects).get("effects")
    if isinstance(effects, dict) and isinstance(effects.get("files"), list):
        paths = [f["path"] for f in effects["files"]
                 if isinstance(f, dict) and isinstance(f.get("path"), str)]
    elif isinstance(event.arguments, dict) and isinstance(event.arguments.get("path"), str):
        paths = [event.arguments["path"]]
    return [{"path": _abs(p, cwd)} for p in dict.fromkeys(paths)]


def diffs(event: ev.ToolCall | ev.ApprovalRequest, cwd: str) -> list[dict[str, Any]]:
    """Tool-call content from the engine's approval preview: a `diff` per file whose texts
    were carried (absolute paths; a new file has `oldText: ""` so Toad opens its diff
    screen); for any other file a text block with what the modal shows instead (its unified
    diff, clipped, or its `no preview: ...` note); and a text block naming the symbolic links
    a path passes through. Empty when the event has no preview."""
    preview = ev.given(preview=event.preview).get("preview")
    out = []
    for item in preview.files if preview is not None else []:
        path = _abs(item.path, cwd) if item.path else ""
        links, diff, note = item.symlinks, item.diff, item.note
        if links:
            out.append(_content(f"{path} passes through symbolic links: {', '.join(links)}"))
        if item.after is not None:
            out.append({"type": "diff", "path": path,
                        "oldText": item.before if item.before is not None else "",
                        "newText": item.after})
        elif diff:
            out.append(_content(diff))
        elif note:
            out.append(_content(f"{path}: {note}" if path else note))
    return out


def _content(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}


def tool_call(event: ev.ToolCall, cwd: str) -> dict[str, Any]:
    update = {"sessionUpdate": "tool_call", "toolCallId": event.call_id, "title": event.name,
              "kind": tool_kind(event.identity), "status": "pending",
              "rawInput": event.arguments}
    content = diffs(event, cwd)  # with a client's previews on: write_file's diff
    if content:
        update["content"] = content
    where = locations(event, cwd)
    if where:
        update["locations"] = where
    return update


def permission_request(session_id: str, event: ev.ApprovalRequest, cwd: str) -> dict[str, Any]:
    """The params of `session/request_permission` for an `ask`: the call (with the diff when
    the engine previewed it), Raw's two options, and the effects in `_meta.raw`."""
    meta: dict[str, Any] = {"identity": event.identity,
                            **ev.given(effects=event.effects, rule_index=event.rule)}
    call: dict[str, Any] = {"toolCallId": event.call_id, "title": event.name,
                            "kind": tool_kind(event.identity), "status": "pending",
                            "rawInput": event.arguments, "_meta": {"raw": meta}}
    content = diffs(event, cwd)
    if content:
        call["content"] = content
    where = locations(event, cwd)
    if where:
        call["locations"] = where
    return {"sessionId": session_id, "toolCall": call, "options": PERMISSION_OPTIONS}


def allowed(response: Any) -> bool:
    """Only `{outcome: {outcome: "selected", optionId: "allow"}}` allows."""
    outcome = response.get("outcome") if isinstance(response, dict) else None
    return isinstance(outcome, dict) and outcome.get("outcome") == "selected" \
        and outcome.get("optionId") == "allow"


def tool_result(event: ev.ToolResultEvent, shown: list | None = None) -> dict[str, Any]:
    """`completed`/`failed` with the result; `shown` (the call's diff content) is kept in
    front of the result's text, as an update's content replaces what the client shows."""
    output: dict[str, Any] = {"isError": event.isError, "content": event.content,
                              **ev.given(code=event.code, truncated=event.truncated)}
    update = {"sessionUpdate": "tool_call_update", "toolCallId": event.call_id,
              "status": "failed" if event.isError else "completed", "rawOutput": output}
    text = "\n".join(b.get("text", "") for b in event.content
                     if isinstance(b, dict) and b.get("type") == "text")
    content = list(shown or []) + ([_content(text)] if text else [])
    if content:
        update["content"] = content
    return update


def in_progress(call_id: str) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "in_progress"}


PRIORITIES = ("high", "medium", "low")


def plan(document: Any) -> dict[str, Any]:
    """A standard `plan` from a panel document: its first checklist flattened depth-first;
    a closed panel (no document) gives no entries."""
    checklist = None
    if isinstance(document, dict):
        checklist = next((b for b in document.get("blocks") or []
                          if isinstance(b, dict) and b.get("kind") == "checklist"), None)
    entries = [{"content": str(item.get("label") or item.get("id") or ""),
                "priority": item.get("priority") if item.get("priority") in PRIORITIES
                else "medium",
                "status": PLAN_STATUS.get(item.get("status"), "pending")}
               for item in _flatten((checklist or {}).get("items") or [])]
    return {"sessionUpdate": "plan", "entries": entries}


def _flatten(items: list[Any]):
    for item in items:
        if isinstance(item, dict):
            yield item  # then its children: raw-tui's `items`, Raw's `children`
            yield from _flatten(item.get("items") or item.get("children") or [])

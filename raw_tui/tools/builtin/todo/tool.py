"""todo: the model's todo list as one checklist panel (`todo`, sidebar). It answers with the
panel's confirmation line, `panel todo updated (revision N): 3/7 done`."""

from __future__ import annotations

from typing import Any

from raw_tui.protocol.errors import PANEL_INVALID, TOOL_ERROR
from raw_tui.panels import PanelError, confirmation_line

PANEL = "todo"
BLOCK = "todo"
MAX_DEPTH = 3
MAX_ITEMS = 200
FINISHED = ("done", "skipped")


class TodoError(Exception):
    code = PANEL_INVALID


def validate_args(args: Any) -> str | None:
    """Ids unique; in replace mode every parent is an item of the list (merge mode may name
    items already on the panel, so the handler checks those)."""
    seen: set[str] = set()
    for i, todo in enumerate(args.get("todos") or []):
        if "id" in todo:
            if todo["id"] in seen:
                return f"todos[{i}].id: duplicate id {todo['id']!r}"
            seen.add(todo["id"])
    if args.get("mode", "replace") == "replace":
        try:
            build_items(_with_ids([dict(t) for t in args.get("todos") or []], set()))
        except TodoError as err:
            return str(err)
    return None


# the list as flat entries {id, content, status, parent?, note?} -------------------------

def _with_ids(todos: list[dict[str, Any]], taken: set[str]) -> list[dict[str, Any]]:
    used = taken | {t["id"] for t in todos if "id" in t}
    n = 0
    for todo in todos:
        if "id" not in todo:
            n += 1
            while f"t{n}" in used:
                n += 1
            todo["id"] = f"t{n}"
            used.add(todo["id"])
    return todos


def flatten(items: list[Any], parent: str | None = None) -> list[dict[str, Any]]:
    """The entries of a checklist, parents before their children."""
    out: list[dict[str, Any]] = []
    for item in items or []:
        entry = {"id": item["id"], "content": item["label"],
                 "status": item.get("status", "pending")}
        if parent is not None:
            entry["parent"] = parent
        if item.get("note"):
            entry["note"] = item["note"]
        out.append(entry)
        out.extend(flatten(item.get("items") or [], item["id"]))
    return out


def merge(current: list[dict[str, Any]], todos: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`current` with `todos` applied: a known id updates that entry, a new one is added."""
    entries = {e["id"]: dict(e) for e in current}
    order = [e["id"] for e in current]
    for todo in _with_ids([dict(t) for t in todos], set(entries)):
        if todo["id"] in entries:
            entries[todo["id"]].update(todo)
        else:
            entries[todo["id"]] = todo
            order.append(todo["id"])
    return [entries[i] for i in order]


def build_items(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Checklist items (nested by `parent`) from flat entries; TodoError names the problem."""
    if len(entries) > MAX_ITEMS:
        raise TodoError(f"todos: at most {MAX_ITEMS} items")
    nodes: dict[str, dict[str, Any]] = {}
    for entry in entries:
        node = {"id": entry["id"], "label": entry["content"],
                "status": entry.get("status") or "pending"}
        if entry.get("note"):
            node["note"] = entry["note"]
        nodes[entry["id"]] = node
    parents = {e["id"]: e.get("parent") for e in entries}
    roots: list[dict[str, Any]] = []
    for entry in entries:
        parent = parents[entry["id"]]
        if parent is None:
            roots.append(nodes[entry["id"]])
            continue
        if parent not in nodes:
            raise TodoError(f"todo {entry['id']}: parent {parent!r} is not in the list")
        if _depth(entry["id"], parents) > MAX_DEPTH:
            raise TodoError(f"todo {entry['id']}: todos nest at most {MAX_DEPTH} levels")
        nodes[parent].setdefault("items", []).append(nodes[entry["id"]])
    return roots


def _depth(todo_id: str, parents: dict[str, str | None]) -> int:
    depth, seen = 1, {todo_id}
    while (todo_id := parents.get(todo_id)) is not None:
        if todo_id in seen:
            raise TodoError(f"todo {todo_id}: its parents form a cycle")
        seen.add(todo_id)
        depth += 1
    return depth


def build_document(entries: list[dict[str, Any]], title: str) -> dict[str, Any]:
    done = sum(e.get("status") == "done" for e in entries)
    total = len(entries)
    finished = total and all(e.get("status") in FINISHED for e in entries)
    return {
        "title": title,
        "summary": f"{done}/{total} done",
        "progress": {"done": done, "total": total},
        "status": "done" if finished else ("active" if total else "idle"),
        "blocks": [{"id": BLOCK, "kind": "checklist", "items": build_items(entries)}],
    }


def _error(code: str, text: str) -> dict[str, Any]:
    return {"isError": True, "code": code, "content": [{"type": "text", "text": text}]}


async def handler(args: Any, ctx: Any) -> Any:
    if ctx.panels is None:
        return _error(TOOL_ERROR, "todo: no panel host in this session")
    todos = [dict(t) for t in args.get("todos") or []]
    title = args.get("title")
    current: list[dict[str, Any]] = []
    if args.get("mode", "replace") == "merge":
        _revision, document = ctx.panels.get(PANEL)
        if document is not None:
            title = title or document.get("title")
            blocks = [b for b in document.get("blocks") or [] if b.get("id") == BLOCK]
            current = flatten(blocks[0].get("items") if blocks else [])
        entries = merge(current, todos)
    else:
        entries = _with_ids(todos, set())
    try:
        document = build_document(entries, title or "Todo")
        revision = await ctx.panels.update(PANEL, {"op": "replace", "document": document})
    except TodoError as err:
        return _error(err.code, f"todo list rejected: {err}")
    except PanelError as err:
        return _error(err.code, f"todo list rejected: {err.message}")
    return confirmation_line(PANEL, revision, document["summary"])


def summarize(args: Any, ctx: Any) -> str:
    """`todo: 3/4 done`, as the panel will read once the call is applied (a merge counts the
    items already on it): the call's line in the chat (tools/summary.py)."""
    todos = [dict(t) for t in args.get("todos") or []]
    entries = todos
    if args.get("mode", "replace") == "merge" and ctx.panels is not None:
        _revision, document = ctx.panels.get(PANEL)
        blocks = [b for b in (document or {}).get("blocks") or [] if b.get("id") == BLOCK]
        entries = merge(flatten(blocks[0].get("items") if blocks else []), todos)
    done = sum(e.get("status") == "done" for e in entries)
    return f"todo: {done}/{len(entries)} done"

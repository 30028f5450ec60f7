"""Ready-made engine events for the UI tests."""

from __future__ import annotations

from raw_tui.protocol import bus as ev

OWNER = "builtin/todo"

BLOCKS = {
    "checklist": {"id": "plan", "kind": "checklist", "title": "Plan", "items": [
        {"id": "a", "label": "Read the code", "status": "done"},
        {"id": "b", "label": "Write the tests", "status": "in_progress", "items": [
            {"id": "b1", "label": "pilot tests", "status": "done"},
            {"id": "b2", "label": "snapshots", "status": "pending", "items": [
                {"id": "b21", "label": "at 80x24", "status": "blocked"}]}]},
        {"id": "c", "label": "Ship it", "status": "failed", "note": "waiting on CI"},
        {"id": "d", "label": "Old idea", "status": "skipped"}]},
    "steps": {"id": "steps", "kind": "steps", "items": [
        {"id": "s1", "label": "Configure", "status": "done"},
        {"id": "s2", "label": "Build", "status": "in_progress", "note": "2 of 5"},
        {"id": "s3", "label": "Deploy"}]},
    "progress": {"id": "prog", "kind": "progress", "done": 3, "total": 7, "label": "Files",
                 "unit": "files"},
    "key_value": {"id": "kv", "kind": "key_value", "items": [
        {"key": "branch", "value": "main"}, {"key": "tests", "value": 42},
        {"key": "clean", "value": True}, {"key": "owner", "value": None}]},
    "table": {"id": "tbl", "kind": "table",
              "columns": [{"id": "name", "label": "Name"},
                          {"id": "n", "label": "Lines", "align": "right"}],
              "rows": [{"id": "r1", "cells": {"name": "app.py", "n": 310}},
                       {"id": "r2", "cells": {"name": "bus.py", "n": 170}}]},
    "markdown": {"id": "md", "kind": "markdown",
                 "text": "# Notes\n\nSome **bold** text and `code`.\n\n- one\n- two"},
    "timeline": {"id": "tl", "kind": "timeline", "events": [
        {"id": "e1", "time": "10:00", "text": "started"},
        {"id": "e2", "time": "10:01", "text": "tests passed", "level": "success"},
        {"id": "e3", "time": "10:02", "text": "lint failed", "level": "error"}]},
    "files": {"id": "files", "kind": "files", "items": [
        {"path": "src/app.py", "status": "modified", "note": "+12 -3"},
        {"path": "src/new.py", "status": "added"},
        {"path": "old.txt", "status": "deleted"}]},
    "mermaid": {"id": "flow", "kind": "mermaid",
                "source": "graph TD\n  A[Plan] --> B[Build]\n  A --> C[Test]\n  B --> D[Ship]\n"
                          "  C --> D"},
    "unknown": {"id": "gauge", "kind": "gauge", "value": 0.5, "label": "load"},
}

FORM = {"id": "q", "kind": "form", "fields": [
    {"id": "name", "kind": "text", "label": "Your name", "required": True},
    {"id": "color", "kind": "single_select", "label": "Colour",
     "options": [{"id": "red", "label": "Red"}, {"id": "blue", "label": "Blue"}]},
    {"id": "tags", "kind": "multi_select", "label": "Tags",
     "options": [{"id": "x", "label": "X"}, {"id": "y", "label": "Y"}, {"id": "z", "label": "Z"}]},
]}

ACTIONS = [
    {"id": "explain", "label": "Explain this plan", "scope": "panel", "kind": "prompt",
     "text": "Explain {{panel.id}}"},
    {"id": "redo", "label": "Redo item", "scope": "item", "kind": "tool"},
    {"id": "submit", "label": "Submit", "scope": "panel", "kind": "response"},
]


def panel(blocks, *, pid="todo", revision=1, placement="sidebar", title="Todo", actions=None,
          **doc):
    document = {"title": title, "blocks": blocks, **doc}
    if actions is not None:
        document["actions"] = actions
    return ev.PanelState(panel=f"{OWNER}#{pid}", owner=OWNER, revision=revision,
                         placement=placement, document=document)


def write_call(path="/work/demo/notes.txt", call_id="c1", rule=1, arguments=None, cwd="/"):
    """A write_file call asked for approval, with the preview the engine computes for it
    (the real tool's `preview` against the files under `cwd`)."""
    arguments = arguments or {"operations": [{"mode": "overwrite", "path": path,
                                              "content": "hello\nworld\n"}]}
    effects = {"files": [{"path": path, "operation": "write"}]}
    return (ev.ToolCall(call_id=call_id, identity="builtin/write_file", name="write_file",
                        arguments=arguments, effects=effects),
            ev.ApprovalRequest(call_id=call_id, identity="builtin/write_file", name="write_file",
                               arguments=arguments, effects=effects, rule=rule,
                               preview=engine_preview(arguments, effects, cwd)))


def engine_preview(arguments, effects, cwd) -> ev.ApprovalPreview:
    from raw_tui.frozen import freeze
    from raw_tui.tools import approval_preview
    from raw_tui.tools.context import ToolContext
    from raw_tui.tools.registry import BUILTIN_DIR, load_tool

    tool = load_tool("builtin/write_file", BUILTIN_DIR / "write_file").module()
    ctx = ToolContext(cwd=cwd, tool_call_id="c", effects=freeze(effects))
    return approval_preview.compute(tool.preview, freeze(arguments), ctx, freeze(effects))


def two_turns() -> list[ev.Event]:
    return [ev.UserMessage(text="first question", turn_id="t1"),
            ev.AssistantText(text="answer alpha", turn_id="t1"),
            ev.RunEnd(status="completed", turn_id="t1"),
            ev.UserMessage(text="second question", turn_id="t2"),
            ev.AssistantText(text="answer beta", turn_id="t2"),
            ev.RunEnd(status="completed", turn_id="t2")]


def retried() -> list[ev.Event]:
    return [ev.TurnRewind(from_turn="t2", reason="retry", turn_id="t3"),
            ev.UserMessage(text="second question", turn_id="t3"),
            ev.AssistantText(text="answer gamma", turn_id="t3"),
            ev.RunEnd(status="completed", turn_id="t3")]

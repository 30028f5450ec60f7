"""Panels and interactions in a headless `raw-tui run`: the todo panel's revisions and
receipts in the JSONL, `interaction_unavailable` for ask_user (exit 0), the text output."""

from __future__ import annotations

import json

from tests.config_kit import raw_tui, write_config, write_script


def setup(tmp_path, *lines, use=("builtin/todo", "builtin/ask_user")):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    write_script(cfg, *lines)
    write_config(cfg, {"tools": {"use": list(use)}})
    work = tmp_path / "work"
    work.mkdir()
    return cfg, work


def run(cfg, work, *extra, output="jsonl"):
    return raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(work), "run", "go",
                   "--output", output, *extra)


def todo(mode, *items):
    return {"name": "todo", "arguments": {"mode": mode, "todos": [
        {"id": i, "content": c, "status": s} for i, c, s in items]}}


LINES = [
    {"text": "Plan.", "tool_calls": [todo("replace", ("a", "Read", "in_progress"),
                                          ("b", "Write", "pending"))]},
    {"tool_calls": [todo("merge", ("a", "Read", "done")),
                    todo("merge", ("b", "Write", "in_progress"))]},
    {"tool_calls": [todo("merge", ("b", "Write", "done"))]},
    {"text": "Finished."},
]


def test_todo_panel_revisions_and_receipts_in_jsonl(tmp_path):
    cfg, work = setup(tmp_path, *LINES)
    proc = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    receipts = [e for e in events if e["type"] == "panel_receipt"]
    turn = next(e["turn_id"] for e in events if e["type"] == "run_end")
    assert receipts == [
        {"type": "panel_receipt", "panel": "todo", "owner": "builtin/todo", "title": "Todo",
         "revision": n, "summary": summary, "op": "replace", "source": "model", "turn_id": turn}
        for n, summary in ((1, "0/2 done"), (2, "1/2 done"), (3, "1/2 done"), (4, "2/2 done"))]
    # each receipt comes right after its call, before the call's result
    order = [e["type"] for e in events if e["type"] in ("tool_call", "panel_receipt",
                                                         "tool_result")]
    assert order == ["tool_call", "panel_receipt", "tool_result"] * 4
    states = [e for e in events if e["type"] == "panel_state"]
    assert states[-1]["revision"] == 4 and states[-1]["panel"] == "builtin/todo#todo"
    assert [i["status"] for i in states[-1]["document"]["blocks"][0]["items"]] == ["done",
                                                                                   "done"]
    results = [e["content"][0]["text"] for e in events if e["type"] == "tool_result"]
    assert results[-1] == "panel todo updated (revision 4): 2/2 done"


def test_text_output_has_one_line_per_call_and_receipt(tmp_path):
    cfg, work = setup(tmp_path, *LINES)
    proc = run(cfg, work, output="text")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line for line in lines if line.startswith("▸")] == [
        "▸ Todo r1 · 0/2 done", "▸ Todo r2 · 1/2 done", "▸ Todo r3 · 1/2 done",
        "▸ Todo r4 · 2/2 done"]
    assert sum(line.startswith("· todo ") for line in lines) == 4
    assert lines[-1] == "Finished."


def test_ask_user_headless_is_interaction_unavailable(tmp_path):
    cfg, work = setup(tmp_path, {"tool_calls": [{"name": "ask_user", "arguments": {
        "questions": [{"id": "q", "text": "Why?"}]}}]}, {"text": "No one to ask, fine."})
    proc = run(cfg, work)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    result, = [e for e in events if e["type"] == "tool_result"]
    assert result["isError"] and result["code"] == "interaction_unavailable"
    assert result["content"] == [{"type": "text",
                                  "text": "no one can answer: this run is not interactive"}]
    assert not [e for e in events if e["type"] in ("interaction_request", "panel_receipt")]
    assert [e["status"] for e in events if e["type"] == "run_end"] == ["completed"]


def test_a_raw_tool_ticks_an_item_with_id_and_status(tmp_path):
    # the way Raw tools patch a checklist: `{id, status}` keeps the item's label
    from tests.config_kit import write_tool

    cfg = tmp_path / "cfg"
    cfg.mkdir()
    write_tool(cfg, "plan", '''
def handler(args, ctx):
    if args.get("text") == "start":
        doc = {"title": "Plan", "blocks": [{"id": "c", "kind": "checklist", "items": [
            {"id": "a", "label": "Read the code"}, {"id": "b", "label": "Fix it"}]}]}
        return {"content": [{"type": "panel", "panel": "p", "op": "replace", "document": doc}]}
    patch = {"op": "upsert_items", "block": "c", "items": [{"id": "a", "status": "done"}]}
    return {"content": [{"type": "panel", "panel": "p", "op": "patch", "patches": [patch]}]}
''', panels=[{"id": "p", "title": "Plan"}])
    calls = [{"tool_calls": [{"name": "plan", "arguments": {"text": t}}]} for t in ("start", "tick")]
    write_script(cfg, *calls)
    write_config(cfg, {"tools": {"use": ["agent/plan"]}})
    proc = run(cfg, tmp_path)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    receipts = [e for e in events if e["type"] == "panel_receipt"]
    assert [r.get("error") for r in receipts] == [None, None], receipts
    state = [e for e in events if e["type"] == "panel_state"][-1]
    assert state["document"]["blocks"][0]["items"] == [
        {"id": "a", "label": "Read the code", "status": "done"}, {"id": "b", "label": "Fix it"}]

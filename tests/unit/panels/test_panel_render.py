"""The plain-text render of every block kind, in Unicode and in ASCII."""

from __future__ import annotations

from raw_tui.panels import render_text, summarize

DOC = {
    "title": "Release",
    "subtitle": "v1.2",
    "status": "active",
    "progress": {"done": 1, "total": 4},
    "summary": "1/4 done",
    "blocks": [
        {"id": "c", "kind": "checklist", "title": "Checklist", "items": [
            {"id": "a", "label": "Read the code", "status": "done"},
            {"id": "b", "label": "Write tests", "status": "in_progress", "note": "halfway",
             "items": [{"id": "b1", "label": "unit", "status": "blocked"},
                       {"id": "b2", "label": "e2e", "status": "failed"}]},
            {"id": "d", "label": "Skip docs", "status": "skipped"}]},
        {"id": "s", "kind": "steps", "items": [
            {"id": "1", "label": "Build", "status": "done"},
            {"id": "2", "label": "Ship", "note": "Friday"}]},
        {"id": "p", "kind": "progress", "label": "Upload", "done": 5, "total": 10, "unit": "MB"},
        {"id": "k", "kind": "key_value", "items": [
            {"key": "model", "value": "gpt"}, {"key": "cached", "value": True},
            {"key": "cost", "value": None}, {"key": "tokens", "value": 1234}]},
        {"id": "t", "kind": "table", "columns": [
            {"id": "n", "label": "Name"}, {"id": "s", "label": "Size", "align": "right"}],
         "rows": [{"id": "r1", "cells": {"n": "a.py", "s": 120}},
                  {"id": "r2", "cells": {"n": "日本.txt", "s": 3}},
                  {"id": "r3", "cells": {"n": "empty"}}]},
        {"id": "tl", "kind": "timeline", "events": [
            {"time": "10:00", "text": "started"},
            {"time": "10:05", "text": "tests passed", "level": "success"},
            {"time": "10:07", "text": "disk low", "level": "warning"}]},
        {"id": "f", "kind": "files", "items": [
            {"path": "src/a.py", "status": "modified", "note": "+3 -1"},
            {"path": "README.md", "status": "added"},
            {"path": "old.txt", "status": "deleted"}]},
        {"id": "m", "kind": "mermaid", "source": "graph TD\n  A-->B"},
        {"id": "md", "kind": "markdown", "text": "**Note:** ready"},
        {"id": "fo", "kind": "form", "fields": [
            {"id": "q", "kind": "single_select", "label": "Ship now?", "required": True,
             "options": [{"id": "y", "label": "Yes"}, {"id": "n", "label": "No"}]},
            {"id": "w", "kind": "multi_select", "label": "Where",
             "options": [{"id": "eu", "label": "EU"}]},
            {"id": "t", "kind": "text", "label": "Why", "description": "a sentence"}]},
        {"id": "x", "kind": "sparkline", "data": [1, 2]},
    ],
}

UNICODE = """\
Release — v1.2
active · █████░░░░░░░░░░░░░░░ 1/4
1/4 done

Checklist
─────────
✔ Read the code
◐ Write tests — halfway
  ! unit
  ✘ e2e
⊘ Skip docs

1. ✔ Build
2. ○ Ship (Friday)

Upload
██████████░░░░░░░░░░ 5/10 MB (50%)

model   gpt
cached  yes
cost    —
tokens  1234

Name      Size
────────  ────
a.py       120
日本.txt     3
empty

10:00  • started
10:05  ✔ tests passed
10:07  ! disk low

M src/a.py  +3 -1
A README.md
D old.txt

(mermaid diagram, source shown)
    graph TD
      A-->B

**Note:** ready

Ship now? *
  ( ) Yes
  ( ) No
Where
  [ ] EU
Why
  a sentence
  [ (text) ]

[unsupported block: sparkline]"""


def test_unicode_render_of_every_kind():
    assert render_text(DOC) == UNICODE


def test_ascii_render_is_pure_ascii():
    text = render_text({**DOC, "blocks": [b for b in DOC["blocks"] if b["id"] != "t"]},
                       unicode=False)
    assert text.isascii()
    assert "[x] Read the code" in text and "[~] Write tests - halfway" in text
    assert "[##########..........] 5/10 MB (50%)" in text
    assert "active | [#####...............] 1/4" in text


def test_title_fallback_and_closed():
    assert render_text({"blocks": []}, title="Todo") == "Todo"
    assert render_text(None, title="Todo") == "Todo (closed)"
    assert render_text({"blocks": [{"id": "c", "kind": "checklist", "items": []}]}) == "(empty)"


def test_summary():
    assert summarize(DOC) == "1/4 done"
    assert summarize({"progress": {"done": 2, "total": 5}}) == "2/5 done"
    # leaf items, `skipped` finished, as Raw (tests/panels-protocol.test.ts, "derived progress
    # counts leaf items, then steps, ..."): a, b1, b2, d; a and d finished
    assert summarize({"blocks": [DOC["blocks"][0]]}) == "2/4 done"
    assert summarize({"title": "Hello"}) == "Hello"
    assert summarize({}) == "0 blocks"
    assert summarize(None) == "closed"

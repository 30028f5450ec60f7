"""The plain-text render of a panel document: the `[Raw panel state]` reminder, the headless
`text` output and the terminal fallback all use it.

    Plan — step 2 of 4
    active · ██████████░░░░░░░░░░ 2/4 (50%)
    2/4 done

    Checklist
    ─────────
    ✔ Read the code
    ◐ Write the tests
      ○ unit
"""

from __future__ import annotations

from typing import Any

from .blocks import render_block
from .blocks.checklist import FINISHED, counts
from .textfmt import ASCII, UNICODE, Style, clip, width


def render_text(document: Any, *, title: str | None = None, unicode: bool = True) -> str:
    """Every block of a (valid) document as plain text. `title` is used when the document
    has none (the declaration's title); `unicode=False` gives pure ASCII glyphs."""
    if document is None:
        return f"{title or 'panel'} (closed)"
    style = UNICODE if unicode else ASCII
    lines = _header(document, title, style)
    for block in document.get("blocks") or []:
        if lines:
            lines.append("")
        lines.extend(_block(block, style))
    return "\n".join(lines)


def _header(document: dict, title: str | None, style: Style) -> list[str]:
    lines = []
    head = document.get("title") or title
    if head and document.get("subtitle"):
        head = f"{head} — {document['subtitle']}" if style.unicode else \
            f"{head} - {document['subtitle']}"
    elif not head:
        head = document.get("subtitle")
    if head:
        lines.append(head)
    state = []
    if document.get("status"):
        state.append(document["status"])
    if document.get("progress"):
        done, total = document["progress"]["done"], document["progress"]["total"]
        state.append(f"{style.bar(done, total)} {done}/{total}")
    if state:
        lines.append((" · " if style.unicode else " | ").join(state))
    if document.get("summary"):
        lines.append(document["summary"])
    return lines


def _block(block: dict, style: Style) -> list[str]:
    body = render_block(block, style)
    if not block.get("title"):
        return body or ["(empty)"]
    rule = style.rule * min(width(block["title"]), 60)
    return [block["title"], rule] + (body or ["(empty)"])


def derived_progress(document: Any) -> tuple[int, int] | None:
    """(finished, total) as Raw derives it: the document's `progress`, else the leaf items
    of every checklist (`done` and `skipped` finished), else the steps of every steps block;
    None when the document has neither."""
    if document.get("progress"):
        return document["progress"]["done"], document["progress"]["total"]
    blocks = [b for b in document.get("blocks") or [] if isinstance(b, dict)]
    checklists = [b for b in blocks if b.get("kind") == "checklist"]
    if checklists:
        done = total = 0
        for block in checklists:
            more, of = counts(block.get("items") or [])
            done, total = done + more, total + of
        return done, total
    steps = [item for b in blocks if b.get("kind") == "steps" for item in b.get("items") or []]
    if any(b.get("kind") == "steps" for b in blocks):
        return sum(item.get("status") in FINISHED for item in steps), len(steps)
    return None


def summarize(document: Any) -> str:
    """The SUMMARY of `panel ID updated (revision N): SUMMARY`: the document's `summary`,
    else its progress (`3/4 done`: `progress`, else derived as Raw does, see
    `derived_progress`), else its title, else the number of blocks."""
    if document is None:
        return "closed"
    if document.get("summary"):
        return document["summary"]
    progress = derived_progress(document)
    if progress is not None:
        return f"{progress[0]}/{progress[1]} done"
    blocks = document.get("blocks") or []
    if document.get("title"):
        return clip(document["title"], 120)
    return f"{len(blocks)} block{'s' if len(blocks) != 1 else ''}"

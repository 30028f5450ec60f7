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
from .blocks.checklist import counts
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


def summarize(document: Any) -> str:
    """The SUMMARY of `panel ID updated (revision N): SUMMARY`: the document's `summary`,
    else its `progress` (`3/7 done`), else the first checklist or steps block's count, else
    its title, else the number of blocks."""
    if document is None:
        return "closed"
    if document.get("summary"):
        return document["summary"]
    if document.get("progress"):
        return f"{document['progress']['done']}/{document['progress']['total']} done"
    blocks = document.get("blocks") or []
    for block in blocks:
        if block.get("kind") in ("checklist", "steps"):
            done, total = counts(block.get("items") or [])
            return f"{done}/{total} done"
    if document.get("title"):
        return clip(document["title"], 120)
    return f"{len(blocks)} block{'s' if len(blocks) != 1 else ''}"

"""The glyph vocabulary shared by the engine's text renders and every client: a panel's
`icon` by name, an item's `status`, an event's `level`. One table per concept; plain data.

The engine accepts exactly the icon names listed here (an unknown one falls back to
`panel` with a warning); a client draws each with its glyph, one terminal cell wide.
"""

from __future__ import annotations

ICONS: dict[str, str] = {
    "panel": "▣", "checklist": "☑", "todo": "☑", "list": "⋮", "steps": "≡", "progress": "▰",
    "chart": "▥", "diagram": "◇", "form": "✎", "question": "?", "table": "▦",
    "timeline": "◴", "clock": "◷", "files": "▤", "file": "▢", "folder": "▱", "terminal": "▸",
    "code": "λ", "git": "⎇", "bug": "✱", "test": "✓", "search": "⌕", "globe": "◎",
    "database": "≣", "gear": "⚙", "info": "ℹ", "warning": "⚠", "error": "✘", "rocket": "➚",
    "star": "★", "book": "❑", "note": "✐", "user": "☺", "lock": "⊡",
}

STATUS: dict[str, str] = {"pending": "○", "in_progress": "◐", "done": "✔", "skipped": "⊘",
                          "blocked": "!", "failed": "✘"}

LEVEL: dict[str, str] = {"info": "•", "success": "✔", "warning": "!", "error": "✘"}

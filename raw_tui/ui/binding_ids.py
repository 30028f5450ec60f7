"""The ids of the UI's key bindings, the keys of `ui.keymap` in raw.json.

A plain list (no textual) so that `config list` can say when a keymap entry names no binding
(Textual ignores such an entry). Every `Binding` in `raw_tui/ui` has one of these ids, and
each of these ids is a binding's (tests/ui/test_binding_ids.py checks both ways).
"""

from __future__ import annotations

NAVIGATORS = ("chat", "sidebar")  # widgets with `nav_bindings(prefix)`
NAVIGATION = ("up", "down", "activate", "copy")

BINDING_IDS: tuple[str, ...] = (
    "raw.quit", "raw.command_palette", "raw.cancel", "raw.toggle_sidebar", "raw.help",
    "raw.transcript", "raw.detach", "raw.redraw", "raw.next_place", "raw.previous_place",
    "raw.submit_form", "raw.retry",
    "raw.search", "chat.edit", "chat.search", "chat.next_match", "chat.previous_match",
    "chat.first", "chat.last",
    "search.next", "search.previous", "search.close",
    "composer.send", "composer.newline", "composer.history_previous", "composer.history_next",
    "approval.allow", "approval.deny", "approval.paths",
    "form.submit", "form.cancel",
    "actions.close", "transcript.close",
    *(f"{prefix}.{name}" for prefix in NAVIGATORS for name in NAVIGATION),
    "sidebar.enter_panel", "sidebar.leave_panel",
)

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
    "approval.allow", "approval.deny", "approval.paths", "chat.undo",
    "undo.confirm", "undo.overwrite", "undo.keep", "undo.cancel",
    "form.submit", "form.cancel",
    "actions.close", "transcript.close",
    *(f"{prefix}.{name}" for prefix in NAVIGATORS for name in NAVIGATION),
    "sidebar.enter_panel", "sidebar.leave_panel",
)


# The README's key table, key by key: each key as the README writes it, and the binding it
# names (None: Textual's own, Ctrl+C's copy-or-cancel). tests/ui/test_readme_keys.py checks
# it both ways against the README and against the bindings; tests/e2e/test_terminal_keys.py
# sends each key as the bytes of each kind of terminal.
KEY_TABLE: tuple[tuple[str, str | None], ...] = (
    ("Enter", "composer.send"), ("Alt+Enter", "composer.newline"),
    ("Shift+Enter", "composer.newline"), ("Ctrl+J", "composer.newline"),
    ("Up", "composer.history_previous"), ("Down", "composer.history_next"),
    ("Esc", "raw.cancel"), ("Ctrl+C", None),
    ("Tab", "raw.next_place"), ("Shift+Tab", "raw.previous_place"),
    ("Enter", "chat.activate"), ("Enter", "sidebar.activate"),
    ("Up", "sidebar.up"), ("Down", "sidebar.down"),
    ("Right", "sidebar.enter_panel"), ("Left", "sidebar.leave_panel"),
    ("a", "approval.allow"), ("d", "approval.deny"),
    ("Ctrl+S", "form.submit"), ("Ctrl+S", "raw.submit_form"), ("Esc", "form.cancel"),
    ("Ctrl+P", "raw.command_palette"), ("F1", "raw.help"),
    ("F2", "raw.toggle_sidebar"), ("Ctrl+T", "raw.toggle_sidebar"),
    ("c", "chat.copy"), ("c", "sidebar.copy"), ("Ctrl+R", "raw.retry"),
    ("e", "chat.edit"), ("u", "chat.undo"), ("Enter", "undo.confirm"), ("o", "undo.overwrite"),
    ("k", "undo.keep"), ("Esc", "undo.cancel"), ("Ctrl+F", "raw.search"), ("/", "chat.search"),
    ("Down", "search.next"), ("Shift+Enter", "search.previous"), ("Up", "search.previous"),
    ("Esc", "search.close"), ("n", "chat.next_match"), ("N", "chat.previous_match"),
    ("Ctrl+O", "raw.transcript"), ("Ctrl+Q", "raw.quit"), ("Ctrl+\\", "raw.detach"),
    ("Ctrl+L", "raw.redraw"),
)

_NAMES = {"esc": "escape", "/": "slash", "\\": "backslash"}


def textual_key(written: str) -> str:
    """The key name Textual gives a key as the README writes it (`Ctrl+\\` -> ctrl+backslash)."""
    *mods, key = written.split("+") if written != "+" else [written]
    key = _NAMES.get(key.lower(), key if len(key) == 1 and not mods else key.lower())
    return "+".join([*(m.lower() for m in mods), key])

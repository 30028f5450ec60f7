"""Every key binding id of the UI, with its default keys: what `ui.keymap` in raw.json may
remap (binding id → keys). Plain data, no textual: `raw-tui config list` reads it to warn
about an unknown id. tests/ui/test_keymap_ids.py checks it against the widgets' BINDINGS."""

from __future__ import annotations

DEFAULT_KEYS: dict[str, str] = {
    # the app
    "raw.quit": "ctrl+q",
    "raw.command_palette": "ctrl+p",
    "raw.cancel": "escape",
    "raw.toggle_sidebar": "f2,ctrl+t",
    "raw.help": "f1",
    "raw.transcript": "ctrl+o",
    # the composer
    "composer.send": "enter",
    "composer.newline": "alt+enter,ctrl+j",
    "composer.history_previous": "up",
    "composer.history_next": "down",
    # the keyboard cursor in the chat and in the sidebar
    "chat.up": "up,k",
    "chat.down": "down,j",
    "chat.activate": "enter",
    "chat.copy": "c,y",
    "sidebar.up": "up,k",
    "sidebar.down": "down,j",
    "sidebar.activate": "enter",
    "sidebar.copy": "c,y",
    # a form (ask_user, interaction requests)
    "form.submit": "ctrl+s",
    "form.cancel": "escape",
    # the approval modal, the actions menu, the transcript of earlier items
    "approval.allow": "a",
    "approval.deny": "d,escape",
    "actions.close": "escape",
    "transcript.close": "escape,q",
}

BINDING_IDS = frozenset(DEFAULT_KEYS)

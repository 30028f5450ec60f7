"""raw_tui/ui/keymap_ids.py lists every binding id the UI has, with its default keys, and
loads without textual (config list reads it)."""

from __future__ import annotations

import subprocess
import sys

from raw_tui.ui.app import RawApp
from raw_tui.ui.keymap_ids import DEFAULT_KEYS
from raw_tui.ui.screens.actions_menu import ActionsMenu
from raw_tui.ui.screens.approval import ApprovalScreen
from raw_tui.ui.screens.main import MainScreen
from raw_tui.ui.screens.transcript import TranscriptScreen
from raw_tui.ui.widgets.chat_view import ChatView
from raw_tui.ui.widgets.composer import Composer
from raw_tui.ui.widgets.form_view import FormView
from raw_tui.ui.widgets.sidebar import Sidebar

OWNERS = [RawApp, MainScreen, ActionsMenu, ApprovalScreen, TranscriptScreen, ChatView, Composer, FormView,
          Sidebar]


def test_every_binding_id_is_listed_with_its_default_keys():
    found = {}
    for owner in OWNERS:
        for cls in owner.__mro__:
            for binding in cls.__dict__.get("BINDINGS", ()):
                if getattr(binding, "id", None):
                    found[binding.id] = binding.key
    assert found == DEFAULT_KEYS


def test_the_ids_load_without_textual():
    code = ("import sys\nfrom raw_tui.ui.keymap_ids import BINDING_IDS\n"
            "assert 'raw.quit' in BINDING_IDS\n"
            "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"

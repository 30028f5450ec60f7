"""The plain list of binding ids (what `config list` checks `ui.keymap` against) is exactly
the ids of the UI's bindings."""

from __future__ import annotations

import importlib
import pkgutil

from textual.binding import Binding
from textual.dom import DOMNode

import raw_tui.ui
from raw_tui.ui.binding_ids import BINDING_IDS


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_binding_ids_are_the_ui_bindings():
    for module in pkgutil.walk_packages(raw_tui.ui.__path__, "raw_tui.ui."):
        importlib.import_module(module.name)
    ids = {binding.id for cls in _subclasses(DOMNode) if cls.__module__.startswith("raw_tui.ui")
           for binding in vars(cls).get("BINDINGS", ()) if isinstance(binding, Binding)}
    assert None not in ids, "a UI binding without an id cannot be remapped"
    assert ids == set(BINDING_IDS)
    assert len(BINDING_IDS) == len(set(BINDING_IDS))

"""The README's key table is the binding table's (raw_tui/ui/binding_ids.py KEY_TABLE): every
key it names is there, each with the binding that has that key; every app-wide binding is in
the README. The bytes each key arrives as are tests/e2e/test_terminal_keys.py's."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from textual.binding import Binding
from textual.dom import DOMNode

import raw_tui.ui
from raw_tui.ui.binding_ids import BINDING_IDS, KEY_TABLE, textual_key

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_keys() -> set[str]:
    """The keys in backticks of the key table's rows (both columns), as written."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| key | what it does |"):]
    table = table[:table.index("\n\n")]
    keys = set()
    for row in table.splitlines()[2:]:
        for cell in row.strip("|").split(" | ")[:2]:
            parts = cell.split("`")[1::2]
            keys.update(p for p in parts if _is_key(p))
    return keys


NAMED = {"Enter", "Esc", "Tab", "Up", "Down", "Left", "Right", "PageUp", "PageDown", "Home",
         "End", *(f"F{n}" for n in range(1, 13))}


def _is_key(text: str) -> bool:
    """`Ctrl+S`, `Enter`, `a`: a key; `/compact`, `SessionEnd`: not."""
    *mods, key = text.split("+")
    return all(m in ("Ctrl", "Alt", "Shift") for m in mods) and (len(key) == 1 or key in NAMED)


def _bindings() -> dict[str, Binding]:
    for module in pkgutil.walk_packages(raw_tui.ui.__path__, "raw_tui.ui."):
        importlib.import_module(module.name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    return {b.id: b for cls in subclasses(DOMNode) if cls.__module__.startswith("raw_tui.ui")
            for b in vars(cls).get("BINDINGS", ()) if isinstance(b, Binding)}


def test_every_key_of_the_readme_is_in_the_key_table():
    assert readme_keys() == {written for written, _ in KEY_TABLE}


def test_each_key_of_the_table_is_its_bindings_key():
    bindings = _bindings()
    for written, binding_id in KEY_TABLE:
        if binding_id is None:
            continue
        assert binding_id in BINDING_IDS
        keys = [k.strip() for k in bindings[binding_id].key.split(",")]
        assert textual_key(written) in keys, (written, binding_id, keys)


def test_every_app_wide_binding_is_in_the_readme():
    named = {binding_id for _, binding_id in KEY_TABLE}
    assert {i for i in BINDING_IDS if i.startswith("raw.")} <= named

"""Names say what a thing is: no two classes of raw_tui share a name across modules, and no
import hides a module behind one letter (`from .. import errors as E`).

A class nested in another (a widget's `FormView.Submitted` message) is always written with its
owner's name, so only module-level classes count.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def shared_class_names(folder: Path) -> dict[str, list[str]]:
    """Module-level class names defined in more than one place: name -> ["file:line", ...]."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in python_files(folder):
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef):
                where[node.name].append(f"{path.relative_to(folder.parent)}:{node.lineno}")
    return {name: places for name, places in where.items() if len(places) > 1}


def one_letter_aliases(*folders: Path) -> list[str]:
    """`file:line: module as X` for every import aliased to one letter."""
    found = []
    for folder in folders:
        for path in python_files(folder):
            where = path.relative_to(folder.parent)
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found += [f"{where}:{node.lineno}: {alias.name} as {alias.asname}"
                              for alias in node.names
                              if alias.asname and len(alias.asname) == 1]
    return found


def test_no_two_classes_of_raw_tui_share_a_name():
    assert shared_class_names(ROOT / "raw_tui") == {}


def test_no_import_has_a_one_letter_alias():
    assert one_letter_aliases(ROOT / "raw_tui", ROOT / "tests") == []


def test_the_checks_find_what_they_forbid(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("class Status:\n    class Inner:\n        pass\n")
    (package / "sub" / "b.py").write_text(
        "from .. import a as A\nimport json as j\n\nclass Status:\n    pass\n\n"
        "class Outer:\n    class Inner:\n        pass\n")
    assert shared_class_names(package) == {"Status": ["pkg/a.py:1", "pkg/sub/b.py:4"]}
    assert one_letter_aliases(package) == ["pkg/sub/b.py:1: a as A",
                                           "pkg/sub/b.py:2: json as j"]

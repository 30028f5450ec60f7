"""The engine never sees the command line's arguments: what opening a session needs is a
`SessionRequest` (raw_tui/session/request.py) the command line (raw_tui/cli/) builds."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import raw_tui
from raw_tui.session.request import SessionRequest

ROOT = Path(raw_tui.__file__).parent
# the host process parses its own command line (`raw-tui-host`, started by host/launch.py)
OWN_COMMAND_LINES = {ROOT / "host" / "process.py"}


def test_a_request_cannot_be_changed_on_the_way():
    request = SessionRequest(cwd=Path("/w"))
    with pytest.raises(AttributeError):
        request.cwd = Path("/elsewhere")  # type: ignore[misc]


def test_argparse_and_its_namespace_stay_in_the_command_line():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if ROOT / "cli" in path.parents:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and path not in OWN_COMMAND_LINES:
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if "argparse" in names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports argparse")
            if isinstance(node, ast.Attribute) and node.attr == "cwd_path":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: reads .cwd_path")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and \
                    len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and \
                    node.args[1].value in ("continue_", "no_detach", "cwd_path"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: sniffs an option")
    assert not found, found


def test_building_a_request_imports_no_session():
    code = ("import sys\nfrom raw_tui.session.request import SessionRequest\n"
            "SessionRequest(cwd=__import__('pathlib').Path('.'))\n"
            "print(sorted(m for m in sys.modules if m.startswith('raw_tui.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(["raw_tui.lazy", "raw_tui.session", "raw_tui.session.request"])

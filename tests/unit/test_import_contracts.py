"""The wall in writing: `lint-imports` (import-linter, contracts in .importlinter) keeps the
engine from importing a client and the UI from reaching past the facade. Next to
test_import_hygiene.py, which proves the engine never loads textual."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_the_layering_holds():
    proc = _lint(REPO)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "2 kept, 0 broken" in proc.stdout


def test_every_top_level_module_is_placed_on_one_side_of_the_wall():
    config = configparser.ConfigParser()
    config.read(REPO / ".importlinter")
    def names(contract: str, key: str) -> set[str]:
        section = config[f"importlinter:contract:{contract}"]
        return {m.removeprefix("raw_tui.") for m in section[key].split()}

    engine = names("engine-never-imports-a-client", "source_modules")
    clients = names("engine-never-imports-a-client", "forbidden_modules")  # and cli
    internals = names("ui-sees-only-the-wall", "forbidden_modules")
    package = REPO / "raw_tui"
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    assert modules - {"__main__"} == engine | clients, "place new modules in .importlinter"
    assert engine - internals == {"protocol"}  # the wall, one package
    wall = {p.stem for p in (package / "protocol").glob("*.py") if p.stem != "__init__"}
    assert wall == {"bus", "commands", "client", "errors", "glyphs", "redact", "termsafe"}


def test_a_ui_module_importing_an_engine_internal_breaks_the_contract(tmp_path):
    shutil.copytree(REPO / "raw_tui", tmp_path / "raw_tui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / ".importlinter", tmp_path / ".importlinter")
    status = tmp_path / "raw_tui" / "ui" / "widgets" / "status_line.py"
    status.write_text(status.read_text() + "\nfrom ...tools.dispatch import Dispatcher\n")
    proc = _lint(tmp_path)
    assert proc.returncode != 0
    assert "The UI reaches a session only through the wall" in proc.stdout
    assert "raw_tui.ui.widgets.status_line -> raw_tui.tools.dispatch" in proc.stdout

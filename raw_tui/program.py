"""The command as the user ran it, for the hints raw-tui prints (`… --continue`, `… attach
ID`): `raw-tui` when that name on PATH is this very program, else the path as it was typed
(`.venv/bin/raw-tui`), and `python -m raw_tui` for a module run (docs/decisions.md).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys


def program(argv0: str | None = None) -> str:
    """How to run raw-tui again from the shell it was typed in, shell-quoted."""
    typed = sys.argv[0] if argv0 is None else argv0
    if not typed or typed == "-c" or typed.endswith(".py"):  # python -m raw_tui
        return f"{_as_typed(sys.executable)} -m raw_tui"
    return _as_typed(typed)


def _as_typed(path: str) -> str:
    """`path`'s bare name when PATH finds the same file under it, else `path`."""
    base = os.path.basename(path)
    found = shutil.which(base) if base else None
    if found and _same_file(found, path):
        return shlex.quote(base)
    return shlex.quote(path)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False

"""What the UI remembers between runs, apart from the configuration: the theme chosen in the
palette, and that the first run's welcome was shown. One small JSON file (the command line passes its path: `ui.json` in the XDG state
directory, found with platformdirs); a missing or unreadable file means the defaults."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import msgspec


class UiPrefs(msgspec.Struct, forbid_unknown_fields=False, omit_defaults=True):
    theme: str | None = None
    welcome_seen: bool = False


def load_prefs(path: Path | None) -> tuple[UiPrefs, str | None]:
    """The remembered preferences and, when the file exists but cannot be read, why."""
    if path is None:
        return UiPrefs(), None
    try:
        return msgspec.json.decode(path.read_bytes(), type=UiPrefs), None
    except FileNotFoundError:
        return UiPrefs(), None
    except (OSError, msgspec.DecodeError) as err:
        return UiPrefs(), f"{path}: {err}"


def save_prefs(path: Path, prefs: UiPrefs) -> None:
    """Write the file whole or not at all (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ui-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(msgspec.json.encode(prefs) + b"\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""XDG locations (platformdirs honours $XDG_CONFIG_HOME and $XDG_STATE_HOME)."""

from __future__ import annotations

from pathlib import Path

import platformdirs


def config_home() -> Path:
    return Path(platformdirs.user_config_dir("raw", appauthor=False))


def cache_home() -> Path:
    return Path(platformdirs.user_cache_dir("raw-tui", appauthor=False))


def state_home() -> Path:
    return Path(platformdirs.user_state_dir("raw-tui", appauthor=False))

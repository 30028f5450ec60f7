"""Hook id → hook folder (001 "Select hooks").

- `agent/<name>`              → `<config_dir>/hooks/<name>/`
- `local/<name>`              → `$XDG_CONFIG_HOME/raw/hooks/<name>/` (default `~/.config/raw/hooks/`)
- `pkg/<alias>/hooks/<export>` → `<package folder>/hooks/<export>/` (see raw_tui.packages)
"""

from __future__ import annotations

import re
from pathlib import Path

import platformdirs


NAME_RE = re.compile(r"[a-z][a-z0-9_-]*")


class UnresolvedHook(ValueError):
    """The id is malformed or names a folder that cannot be found; `str()` says why."""


def local_hooks_dir() -> Path:
    """`platformdirs.user_config_path("raw")/hooks` (honours $XDG_CONFIG_HOME on Linux)."""
    return platformdirs.user_config_path("raw") / "hooks"


def hook_name(hook_id: str) -> str:
    """The folder name a hook id points at (its last segment); the manifest name must equal it."""
    return hook_id.rsplit("/", 1)[-1]


def resolve_hook(hook_id: str, *, config_dir: Path) -> Path:
    """The folder of `hook_id`; UnresolvedHook when the id is malformed or the folder is missing."""
    if not isinstance(hook_id, str):
        raise UnresolvedHook("must be a string")
    folder = _folder_for(hook_id, Path(config_dir))
    if not folder.is_dir() and not folder.is_symlink():
        raise UnresolvedHook(f"hook {hook_id}: folder not found: {folder}")
    return folder


def _folder_for(hook_id: str, config_dir: Path) -> Path:
    parts = hook_id.split("/")
    if len(parts) == 2 and parts[0] == "agent":
        return config_dir / "hooks" / _checked_name(hook_id, parts[1])
    if len(parts) == 2 and parts[0] == "local":
        return local_hooks_dir() / _checked_name(hook_id, parts[1])
    if len(parts) == 4 and parts[0] == "pkg" and parts[2] == "hooks":
        alias = _checked_name(hook_id, parts[1])
        export = _checked_name(hook_id, parts[3])
        try:
            from ..packages import PackageNotFound, package_folder  # importlib.metadata: slow

            return package_folder(alias) / "hooks" / export
        except PackageNotFound as exc:
            raise UnresolvedHook(f"hook {hook_id}: {exc}") from None
    raise UnresolvedHook(
        f'bad hook id "{hook_id}": use agent/<name>, local/<name> or pkg/<alias>/hooks/<export>'
    )


def _checked_name(hook_id: str, name: str) -> str:
    if not NAME_RE.fullmatch(name):
        raise UnresolvedHook(f'bad hook id "{hook_id}": "{name}" must match ^[a-z][a-z0-9_-]*$')
    return name

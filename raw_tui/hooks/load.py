"""`hooks.use` → a validated HookSet. Loading reads and checks everything and never runs a hook.

Steps per id: resolve the folder, snapshot it (limits), parse `hook.json`, bind every `when`
to the tools its `match` covers (as `tools.rules` do). A PreToolUse `when` on `effects` is
not bound to a tool without effects: at run time that call is blocked with
`hook ID: effects inspection unavailable` (docs/hooks.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..protocol.errors import ConfigError, json_path
from ..policy import ToolLike, check_binding
from .manifest import GATE_EVENTS, HookManifest, parse_manifest
from .resolve import UnresolvedHook, hook_name, resolve_hook
from .snapshot import MANIFEST as MANIFEST_NAME
from .snapshot import FolderError, FolderSnapshot, take_snapshot


@dataclass
class LoadedHook:
    """One selected hook: its id, source folder, manifest and the snapshot it runs from."""

    id: str
    folder: Path
    manifest: HookManifest
    snapshot: FolderSnapshot

    @property
    def name(self) -> str:
        return self.manifest.name

    def workdir(self) -> Path:
        """The materialised snapshot folder (created on first use, removed by `close`)."""
        return self.snapshot.materialize(self.manifest.name)

    def close(self) -> None:
        self.snapshot.close()


@dataclass
class HookSet:
    """The hooks of one agent, in `hooks.use` order. Close it when it is no longer used."""

    hooks: tuple[LoadedHook, ...] = ()
    _by_id: dict[str, LoadedHook] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {hook.id: hook for hook in self.hooks}

    def __iter__(self) -> Iterator[LoadedHook]:
        return iter(self.hooks)

    def __len__(self) -> int:
        return len(self.hooks)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(hook.id for hook in self.hooks)

    @property
    def folders(self) -> tuple[Path, ...]:
        return tuple(hook.folder for hook in self.hooks)

    @property
    def fingerprint(self) -> tuple[tuple[str, str], ...]:
        """(id, snapshot digest) per hook: equal fingerprints mean nothing changed."""
        return tuple((hook.id, hook.snapshot.digest) for hook in self.hooks)

    def get(self, hook_id: str) -> LoadedHook | None:
        return self._by_id.get(hook_id)

    def close(self) -> None:
        for hook in self.hooks:
            hook.close()


def load_hooks(
    use: list[str],
    *,
    config_dir: Path,
    tools: Mapping[str, ToolLike],
    where: list,
    file: str,
) -> HookSet:
    """Load and validate the hooks listed in `hooks.use`.

    `where` is the JSON path of the `hooks.use` array in the config (e.g.
    `["agents", "coder", "hooks", "use"]`) and `file` the config file as errors name it;
    `tools` maps identity → tool (`.identity`, `.condition_sources`, `.input_schema`,
    `.effects_schema`) for binding `when`. Raises ConfigError; never runs anything.
    """
    config_dir = Path(config_dir)
    _check_unique(use, where, file)
    hooks = []
    for index, hook_id in enumerate(use):
        hooks.append(load_hook(hook_id, config_dir=config_dir, tools=tools, where=[*where, index], file=file))
    return HookSet(tuple(hooks))


def _check_unique(use: list[str], where: list, file: str) -> None:
    seen: set[str] = set()
    for index, hook_id in enumerate(use):
        if hook_id in seen:
            raise ConfigError(f"duplicate hook id {hook_id}", file=file, path=json_path([*where, index]))
        seen.add(hook_id)


def load_hook(
    hook_id: str, *, config_dir: Path, tools: Mapping[str, ToolLike], where: list, file: str
) -> LoadedHook:
    """Load one hook; `where` is the path of its entry in `hooks.use`."""
    at = json_path(where)
    try:
        folder = resolve_hook(hook_id, config_dir=config_dir)
    except UnresolvedHook as exc:
        raise ConfigError(str(exc), file=file, path=at) from None
    display = display_path(folder, config_dir)
    try:
        snapshot = take_snapshot(folder, display=display)
    except FolderError as exc:
        raise ConfigError(f"hook {hook_id}: {exc}", file=file, path=at) from None
    manifest_file = f"{display}/{MANIFEST_NAME}"
    data = snapshot.files.get(MANIFEST_NAME)
    if data is None:
        raise ConfigError(f"hook {hook_id}: no {MANIFEST_NAME} in {display}", file=file, path=at)
    manifest = parse_manifest(
        data.data, folder_name=hook_name(hook_id), files=snapshot.files, file=manifest_file
    )
    bind_manifest(manifest, tools, file=manifest_file)
    return LoadedHook(hook_id, folder, manifest, snapshot)


def bind_manifest(manifest: HookManifest, tools: Mapping[str, ToolLike], *, file: str) -> None:
    """Check every subscription's `when` against every tool its `match` covers."""
    for sub in manifest.subscriptions:
        if sub.when is None:
            continue
        for tool in tools.values():
            if not sub.covers(tool.identity):
                continue
            if effects_unavailable(sub.event, sub.when.source, tool):
                continue
            check_binding(sub.when, tool, where=["events", sub.index, "when"], file=file)


def effects_unavailable(event: str, source: str, tool: Any) -> bool:
    """A gate `when` on `effects` for a tool without effects: blocks at run time, not a config error."""
    return event in GATE_EVENTS and source == "effects" and tool.effects_schema is None


def display_path(folder: Path, config_dir: Path) -> str:
    """The folder relative to the config dir when it is inside it, else absolute (POSIX form)."""
    try:
        return folder.relative_to(config_dir).as_posix()
    except ValueError:
        return folder.as_posix()

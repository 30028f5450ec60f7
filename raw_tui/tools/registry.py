"""Tool identities → tool folders → loaded tools (`ToolSpec`), and an agent's exposed set.

A `ToolSpec` is a tool folder's tool (builtin/, local/, agent/, pkg/); `mcp.tool.McpTool`
is an MCP server's and `acp.client_tools.AcpClientTool` an ACP client's. All three
implement `tools.ports.Tool`.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import platformdirs
import re2

from ..contract.schema import build_validator
from ..contract.tool_manifest import ID_PATTERN, ToolManifest, load_manifest
from ..protocol.errors import ConfigError
from .ports import Tool

BUILTIN_DIR = Path(__file__).parent / "builtin"


def local_dir() -> Path:
    return Path(platformdirs.user_config_dir("raw", appauthor=False)) / "tools"


class _NoBytecodeLoader(importlib.machinery.SourceFileLoader):
    """No `__pycache__` written into the tool folder: running a tool writes nothing beside it
    (the demo writes only into its scratch directory). Per module, unlike
    `sys.dont_write_bytecode`, which an import that never ends would leave set for all."""

    def set_data(self, path: str, data: bytes, *, _mode: int = 0o666) -> None:
        return None


@dataclass
class ToolSpec:
    identity: str
    folder: Path
    manifest: ToolManifest
    entry: Path
    validator: Any
    effects_validator: Any | None
    declarations: list[Any] = field(default_factory=list)
    has_validate_args: bool = False
    has_preview: bool = False  # the entry defines `preview(args, ctx)` (run before asking)
    has_summary: bool = False  # the entry defines `summarize(args, ctx)` (tools/summary.py)
    warnings: list[str] = field(default_factory=list)  # e.g. an unknown panel icon
    _module: ModuleType | None = None
    _loading: threading.Lock = field(default_factory=threading.Lock, repr=False,
                                     compare=False)
    # the rest of the Tool protocol (tools/ports.py): a folder tool is always available,
    # is no MCP tool, writes only the panels it declares, is named by its name
    is_mcp: ClassVar[bool] = False
    available: ClassVar[bool] = True
    implicit_panels: ClassVar[bool] = False
    label: ClassVar[str | None] = None

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def description(self) -> str:
        return self.manifest.description

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.manifest.input_schema

    @property
    def effects_schema(self) -> dict[str, Any] | None:
        return self.manifest.effects_schema

    @property
    def condition_sources(self) -> list[str]:
        return self.manifest.condition_sources

    @property
    def has_effects(self) -> bool:
        return self.manifest.effects_schema is not None

    @property
    def loaded(self) -> bool:
        """The entry module is imported: `module()` runs no tool code any more."""
        return self._module is not None

    def module(self) -> ModuleType:
        """Import the entry module on first use (loading a config never runs tool code).
        Its top-level code is the tool author's: dispatch calls this in a worker thread under
        a deadline (raw_tui.tools.worker), never on the event loop. One import at a time: a
        second caller waits for the first (and is abandoned at its own deadline)."""
        if self._module is not None:
            return self._module
        with self._loading:
            if self._module is not None:
                return self._module
            mod_name = f"raw_tui_tool_{abs(hash(str(self.entry))):x}_{self.folder.name}"
            spec = importlib.util.spec_from_file_location(
                mod_name, self.entry, loader=_NoBytecodeLoader(mod_name, str(self.entry)))
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(mod_name, None)
                raise
            self._module = module
            return module

    def handler(self) -> Any:
        """`handler(args, ctx)` of the entry module (an MCP tool has its own)."""
        return self.module().handler

    def definition(self) -> dict[str, Any]:
        """What the model sees: name, description, input schema. Never panel state."""
        return {"name": self.name, "description": self.description,
                "input_schema": self.input_schema}


def tool_folder(identity: str, *, config_dir: Path | None, where: str, file: str | None) -> Path:
    """Where a tool identity lives (docs/configuration.md)."""
    parts = identity.split("/")

    def bad(msg: str) -> ConfigError:
        return ConfigError(msg, file=file, path=where)

    if parts[0] in ("builtin", "local", "agent"):
        if len(parts) != 2 or not re2.fullmatch(ID_PATTERN, parts[1]):
            raise bad(f"invalid tool id {identity!r}: expected {parts[0]}/<name> with a name "
                      f"matching {ID_PATTERN}")
        name = parts[1]
        if parts[0] == "builtin":
            folder = BUILTIN_DIR / name
        elif parts[0] == "local":
            folder = local_dir() / name
        else:
            if config_dir is None:
                raise bad(f"{identity}: agent/ tools need a config file")
            folder = config_dir / "tools" / name
    elif parts[0] == "pkg":
        if len(parts) != 4 or parts[2] != "tools" or not re2.fullmatch(ID_PATTERN, parts[3]):
            raise bad(f"invalid tool id {identity!r}: expected pkg/<alias>/tools/<export>")
        from ..packages import package_folder

        try:
            folder = package_folder(parts[1]) / "tools" / parts[3]
        except LookupError as err:
            raise bad(str(err)) from None
    elif parts[0] == "mcp":
        raise bad(f"{identity}: an MCP tool has no folder")
    else:
        raise bad(f"invalid tool id {identity!r}: must start with builtin/, local/, agent/, "
                  "pkg/ or mcp/")
    if not (folder / "tool.json").is_file():
        raise bad(f"tool {identity} not found: no {folder / 'tool.json'}")
    return folder


def load_tool(identity: str, folder: Path) -> ToolSpec:
    file = str(folder / "tool.json")
    manifest, entry, names = load_manifest(folder, label=file)
    validator = build_validator(manifest.input_schema, where=["input_schema"], file=file)
    effects_validator = None
    if manifest.effects_schema is not None:
        effects_validator = build_validator(manifest.effects_schema, where=["effects_schema"],
                                            file=file)
    declarations: list[Any] = []
    warnings: list[str] = []
    if manifest.panels:
        from ..panels.declaration import parse_declarations

        declarations = parse_declarations(manifest.panels, where=["panels"], file=file,
                                          warnings=warnings)
    return ToolSpec(identity=identity, folder=folder, manifest=manifest, entry=entry,
                    validator=validator, effects_validator=effects_validator,
                    declarations=declarations, has_validate_args="validate_args" in names,
                    has_preview="preview" in names,
                    has_summary="summarize" in names,
                    warnings=warnings)


class ToolCache:
    """Load each tool folder once per process (several agents may use the same tool)."""

    def __init__(self) -> None:
        self._tools: dict[tuple[str, Path], ToolSpec] = {}

    def get(self, identity: str, folder: Path) -> ToolSpec:
        key = (identity, folder)
        if key not in self._tools:
            self._tools[key] = load_tool(identity, folder)
        return self._tools[key]


@dataclass
class ExposedTools:
    """An agent's `tools.use`, in order: by identity and by model-facing name."""

    tools: list[Tool]

    def __post_init__(self) -> None:
        self.by_identity = {t.identity: t for t in self.tools}
        self.by_name = {t.name: t for t in self.tools}

    def find(self, name_or_identity: str) -> Tool | None:
        return self.by_identity.get(name_or_identity) or self.by_name.get(name_or_identity)

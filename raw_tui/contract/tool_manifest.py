"""`tool.json`, Tool API `raw.tool-api/2` (docs/gate.md), validated strictly."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import msgspec

from .entry_names import entry_names
from ..protocol.errors import ConfigError, json_path
from ..jsonstrict import convert, load_file

ID_PATTERN = r"^[a-z][a-z0-9_-]*$"
NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
VERSION_PATTERN = r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$"
MAX_MANIFEST_BYTES = 1024 * 1024
MAX_ENTRY_BYTES = 256 * 1024
MAX_PANELS = 4
CONDITION_SOURCES = ("arguments", "effects")


class ToolManifest(msgspec.Struct, forbid_unknown_fields=True):
    api_version: int
    id: str
    version: str
    name: str
    description: str
    input_schema: dict[str, Any]
    entry: str
    condition_sources: list[str] = msgspec.field(default_factory=lambda: ["arguments"])
    effects_schema: dict[str, Any] | None = None
    panels: list[Any] = msgspec.field(default_factory=list)


def _check(cond: bool, message: str, file: str, *where: str | int) -> None:
    if not cond:
        raise ConfigError(message, file=file, path=json_path(list(where)))


def _module_functions(path: Path, file: str) -> set[str]:
    """Names defined at the top of the entry module, read without running it. The module is
    bounded (MAX_ENTRY_BYTES: parsing a hostile 1 MiB takes ~4 s and ~650 MB), and a parse
    that runs out of memory or recursion (`-` repeated 100,000 times) is a clean error."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_ENTRY_BYTES + 1)
    except OSError as err:
        raise ConfigError(f"entry {path.name} cannot be read: {err.strerror}", file=file,
                          path="entry") from None
    if len(data) > MAX_ENTRY_BYTES:
        raise ConfigError(f"entry {path.name} is larger than {MAX_ENTRY_BYTES // 1024} KiB "
                          "(move code into other modules of the folder)", file=file,
                          path="entry")
    try:
        tree = ast.parse(data, filename=str(path))
    except (SyntaxError, ValueError) as err:
        raise ConfigError(f"entry {path.name} cannot be read as Python: {err}", file=file,
                          path="entry") from None
    except (MemoryError, RecursionError):
        raise ConfigError(f"entry {path.name} cannot be read as Python: nested too deeply",
                          file=file, path="entry") from None
    names: set[str] = set()
    _top_level_names(tree.body, names)
    return names


def _top_level_names(body: list[ast.stmt], names: set[str]) -> None:
    """Names a module body binds, including inside top-level `if`/`try`/`with` blocks (a
    `validate_args` defined in a `try: import ... except ImportError:` must not be missed)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.With, ast.AsyncWith)):
            _top_level_names(node.body, names)
            _top_level_names(getattr(node, "orelse", []), names)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            for block in (node.body, node.orelse, node.finalbody):
                _top_level_names(block, names)
            for handler in node.handlers:
                _top_level_names(handler.body, names)


def load_manifest(folder: Path, *, label: str | None = None) -> tuple[ToolManifest, Path, set[str]]:
    """Read and check `folder/tool.json`. Returns (manifest, entry path, defined names).

    Schemas and panels are checked by the registry (they need validators and the panels
    package); everything else is checked here."""
    file = label or str(folder / "tool.json")
    import re2

    raw = load_file(folder / "tool.json", max_bytes=MAX_MANIFEST_BYTES, label=file)
    if not isinstance(raw, dict):
        raise ConfigError("must be a JSON object", file=file)
    m = convert(raw, ToolManifest, where=[], file=file)
    _check(m.api_version == 2, "must be 2", file, "api_version")
    _check(re2.fullmatch(ID_PATTERN, m.id) is not None, f"must match {ID_PATTERN}", file, "id")
    _check(m.id == folder.name, f"must equal the folder name {folder.name!r}", file, "id")
    _check(re2.fullmatch(VERSION_PATTERN, m.version) is not None,
           "must be major.minor.patch", file, "version")
    _check(re2.fullmatch(NAME_PATTERN, m.name) is not None, f"must match {NAME_PATTERN}",
           file, "name")
    _check(bool(m.description.strip()), "must not be empty", file, "description")
    _check(len(m.panels) <= MAX_PANELS, f"at most {MAX_PANELS} panels", file, "panels")
    for i, source in enumerate(m.condition_sources):
        _check(source in CONDITION_SOURCES, 'must be "arguments" or "effects"', file,
               "condition_sources", i)
    _check(len(set(m.condition_sources)) == len(m.condition_sources), "duplicate source",
           file, "condition_sources")
    entry = _entry_path(folder, m.entry, file)
    names = entry_names(entry, lambda: _module_functions(entry, file))
    _check("handler" in names, f"entry {m.entry} does not define handler", file, "entry")
    describes = "describe_effects" in names
    if describes and m.effects_schema is None:
        raise ConfigError("describe_effects is defined, so effects_schema is required",
                          file=file, path="effects_schema")
    if m.effects_schema is not None and not describes:
        raise ConfigError(f"effects_schema given, but {m.entry} does not define describe_effects",
                          file=file, path="effects_schema")
    if "effects" in m.condition_sources and m.effects_schema is None:
        raise ConfigError('"effects" needs effects_schema and describe_effects', file=file,
                          path="condition_sources")
    return m, entry, names


def _entry_path(folder: Path, entry: str, file: str) -> Path:
    _check(entry.startswith("./") and entry.endswith(".py"),
           'must be a "./" path to a Python file', file, "entry")
    try:
        root = folder.resolve()
        path = (folder / entry).resolve()
        inside = path.is_relative_to(root)
        found = inside and path.is_file()
    except (OSError, ValueError, RuntimeError) as error:  # a name too long, a NUL, a
        # symlink loop (RuntimeError from resolve on Python 3.11): not a file there is
        why = getattr(error, "strerror", None) or str(error)
        raise ConfigError(f"{entry!r} cannot be a file: {why}", file=file,
                          path="entry") from None
    _check(inside, "must stay inside the tool folder", file, "entry")
    _check(found, f"{entry} does not exist", file, "entry")
    return path

"""Lazy package attributes: a package re-exports names without importing every module at
start-up (`raw-tui config list` must not pay for the hook runner or the panel host)."""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_exports(package: str, where: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `package.<module>` on first use of a name."""

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(f".{where[name]}", package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__

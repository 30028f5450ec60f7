"""Installed Raw packages: `pkg/<alias>/hooks/<export>` and `pkg/<alias>/tools/<export>`.

A package is an installed Python distribution that declares an entry point in the group
`raw_tui.packages`. The entry point's name is the alias; its value names an importable
package (a folder) that holds `hooks/` and `tools/`:

    [project.entry-points."raw_tui.packages"]
    acme = "acme_raw"          # acme_raw/hooks/<export>/, acme_raw/tools/<export>/

The folder is found with `importlib.util.find_spec`, without importing the package's code
(a dotted value imports its parent packages, as Python must).
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import entry_points
from pathlib import Path

GROUP = "raw_tui.packages"


class PackageNotFound(LookupError):
    """No usable package for an alias; `str()` is a one-line reason."""


def package_folder(alias: str) -> Path:
    """The folder of the package registered under `alias` in `raw_tui.packages`.

    Raises PackageNotFound when no entry point has that name, when two distributions
    declare it, or when its value does not name an importable package folder.
    """
    found = [ep for ep in entry_points(group=GROUP) if ep.name == alias]
    if not found:
        raise PackageNotFound(f'no installed package declares "{alias}" in entry point group {GROUP}')
    values = {ep.value for ep in found}
    if len(values) > 1:
        raise PackageNotFound(f'package alias "{alias}" is declared more than once: {sorted(values)}')
    return _module_folder(alias, found[0].module)


def _module_folder(alias: str, module: str) -> Path:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as exc:
        raise PackageNotFound(f'package "{alias}": cannot find module {module}: {exc}') from None
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise PackageNotFound(f'package "{alias}": {module} is not an importable package folder')
    return Path(locations[0])

"""Where the Textual CSS is: the package raw_tui.styles, which is the repository's top-level
styles/ folder (setup.py maps it), found through importlib.resources in an installed wheel
and in an editable checkout alike; a checkout run without installing (PYTHONPATH=.) finds
styles/ beside raw_tui/."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2] / "styles"


@cache
def styles_dir() -> Path:
    try:
        return Path(str(resources.files("raw_tui.styles")))
    except ModuleNotFoundError:
        return CHECKOUT


def stylesheets(*names: str) -> list[Path]:
    """The sheets `NAME.tcss`, in order."""
    return [styles_dir() / f"{name}.tcss" for name in names]


def stylesheet(name: str) -> Path:
    return styles_dir() / f"{name}.tcss"

"""Where the Textual CSS is: the package raw_tui.styles, which is the repository's top-level
styles/ folder (setup.py maps it), found as that package's folder in an installed wheel and
in an editable checkout alike; a checkout run without installing (PYTHONPATH=.) finds
styles/ beside raw_tui/. (Not importlib.resources: its import is a good part of a frame's
worth of start-up, for a path the package's `__file__` gives.)"""

from __future__ import annotations

from functools import cache
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2] / "styles"


@cache
def styles_dir() -> Path:
    try:
        from .. import styles
    except ImportError:
        return CHECKOUT
    return Path(styles.__file__).parent


def stylesheets(*names: str) -> list[Path]:
    """The sheets `NAME.tcss`, in order."""
    return [styles_dir() / f"{name}.tcss" for name in names]


def stylesheet(name: str) -> Path:
    return styles_dir() / f"{name}.tcss"

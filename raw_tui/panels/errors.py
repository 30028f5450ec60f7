"""Panel errors: a code of docs/panels.md and a message that points at the field."""

from __future__ import annotations

from ..protocol.errors import PANEL_INVALID, RawError
from ..protocol.termsafe import escape_controls


class PanelError(RawError):
    """A rejected panel update (`code` is one of the panel_* codes)."""


class Invalid(Exception):
    """A document, block or patch that breaks a rule; `at` is the path inside what was sent.

    Becomes `PanelError(panel_invalid, "/blocks/0/items/0/oops: unknown field")`."""

    def __init__(self, at: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.at = at
        self.message = message

    def pointer(self) -> str:
        return pointer(self.at)

    def as_panel_error(self) -> PanelError:
        return PanelError(PANEL_INVALID, f"{self.pointer()}: {self.message}")


def pointer(at: tuple[str | int, ...] | list[str | int]) -> str:
    """A JSON pointer (RFC 6901), control characters in keys escaped (`\\x0a`) so that the
    message stays one line; the root is `/`."""
    if not at:
        return "/"
    return "".join("/" + escape_controls(str(p).replace("~", "~0").replace("/", "~1"),
                                         keep_lines=False) for p in at)

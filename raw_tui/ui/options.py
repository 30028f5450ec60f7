"""The UI's settings (`ui` in raw.json): a keymap and two switches, off by default for SSH."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class UiOptions:
    keymap: dict[str, str] = field(default_factory=dict)
    cursor_blink: bool = False
    animations: bool = False
    max_chat_items: int = 100  # chat widgets kept mounted; older ones are pruned

    @classmethod
    def of(cls, ui_config: Any) -> "UiOptions":
        """From raw_tui.config.UiConfig, a plain dict, None, or a UiOptions."""
        if ui_config is None:
            return cls()
        if isinstance(ui_config, cls):
            return ui_config
        get = ui_config.get if isinstance(ui_config, dict) else (
            lambda key, default=None: getattr(ui_config, key, default))
        return cls(keymap=dict(get("keymap", None) or {}),
                   cursor_blink=bool(get("cursor_blink", False)),
                   animations=bool(get("animations", False)),
                   max_chat_items=int(get("max_chat_items", 100) or 100))

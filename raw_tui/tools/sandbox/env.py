"""The environment of every process raw-tui starts for a command, a hook or an MCP server
(docs/sandbox.md, "The environment").

In every mode it lacks each variable a model entry names in `api_key_env` (registered when a
config loads) and the variables raw-tui reads for itself (INTERNAL: how its UI starts). The
process-accounting one (`RAW_TUI_PROC`, raw_tui.tools.proctree) stays: it is how raw-tui
finds every process a call started. Variables meant for hooks (`RAW_TUI_HOOK_LOG` of the
example log hook) stay too. A sandboxed command's environment also lacks every variable whose name contains
KEY, TOKEN, SECRET or PASSWORD (any case) unless `env_keep` lists it, and the variables that
point at host sockets (`SSH_AUTH_SOCK`, D-Bus, Docker).
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping

# raw_tui.protocol.client.TRANSPORT_ENV, raw_tui.ui.welcome.WELCOME_ENV, raw_tui.ui.app.FIRST_FRAME_ENV
INTERNAL = frozenset({"RAW_TUI_TRANSPORT", "RAW_TUI_WELCOME", "RAW_TUI_FIRST_FRAME_FILE"})
ACCOUNTING = "RAW_TUI_PROC"  # raw_tui.tools.proctree.ENV_KEY
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
HOST_SOCKETS = ("SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
                "DOCKER_HOST")

_key_names: set[str] = set()


def register_key_names(names: Iterable[str | None]) -> None:
    """The `api_key_env` names of a loaded config: no child process inherits them."""
    _key_names.update(name for name in names if name)


def key_names() -> frozenset[str]:
    return frozenset(_key_names)


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def child_env(base: Mapping[str, str] | None = None, *, sandboxed: bool = False,
              keep: Iterable[str] = ()) -> dict[str, str]:
    """`base` (default: raw-tui's own environment) without what a child must not inherit."""
    source = os.environ if base is None else base
    kept = set(keep)
    out: dict[str, str] = {}
    for name, value in source.items():
        if name in _key_names:
            continue
        if name in INTERNAL:
            continue
        if sandboxed and name not in kept and (looks_secret(name) or name in HOST_SOCKETS):
            continue
        out[name] = value
    return out

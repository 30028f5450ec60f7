"""`agents.<name>.sandbox` (docs/sandbox.md): the settings as given, checked strictly, and the
mode bash runs in once availability is known."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import msgspec

from ...protocol.errors import ConfigError, json_path

if TYPE_CHECKING:
    from ...config import Agent

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
Mode = Literal["overlay", "workspace", "off"]


class SandboxConfig(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    mode: Mode | None = None  # None: overlay where the sandbox can run, else off
    network: bool = False
    writable: list[str] = msgspec.field(default_factory=list)
    protect: list[str] = msgspec.field(default_factory=list)
    env_keep: list[str] = msgspec.field(default_factory=list)
    max_bytes: int = DEFAULT_MAX_BYTES


def check(config: SandboxConfig, *, where: list, file: str) -> None:
    """What the types alone do not say: paths that can be bound, names that can be kept."""
    at = where + ["sandbox"]
    for i, path in enumerate(config.writable):
        if not (os.path.isabs(path) or path == "~" or path.startswith("~/")):
            raise ConfigError("must be an absolute path or start with ~/", file=file,
                              path=json_path(at + ["writable", i]))
    for i, path in enumerate(config.protect):
        if not path or "\0" in path:
            raise ConfigError("must be a path", file=file, path=json_path(at + ["protect", i]))
    for i, name in enumerate(config.env_keep):
        if not name or "=" in name or "\0" in name:
            raise ConfigError("must be a variable name", file=file,
                              path=json_path(at + ["env_keep", i]))
    if config.max_bytes < 1:
        raise ConfigError("must be positive", file=file, path=json_path(at + ["max_bytes"]))


@dataclass(frozen=True)
class Resolved:
    """How bash runs for one agent here: `mode` (what runs), whether the sandbox could run,
    and when it cannot, the reason and fix. `fail_closed`: the mode was set explicitly and
    cannot run, so bash calls fail `sandbox_unavailable`."""

    mode: str
    available: bool
    explicit: bool
    network: bool
    reason: str | None = None
    fix: str | None = None

    @property
    def fail_closed(self) -> bool:
        return self.explicit and self.mode != "off" and not self.available

    def listing(self) -> dict:
        out: dict = {"mode": self.mode, "available": self.available}
        if self.reason:
            out["reason"] = self.reason
        if self.fix:
            out["fix"] = self.fix
        if self.mode != "off":
            out["network"] = self.network
        return out

    def status(self) -> str:
        """The status line's words: `sandbox: overlay · net off`, or `sandbox off: REASON`."""
        if self.mode == "off" or not self.available:
            why = self.reason if not self.available else "mode off"
            return f"sandbox off: {why}"
        return f"sandbox: {self.mode} · net {'on' if self.network else 'off'}"


def resolve(config: SandboxConfig | None) -> Resolved:
    from .availability import probe

    found = probe()
    network = bool(config and config.network)
    explicit = config is not None and config.mode is not None
    if explicit:
        mode = config.mode
    else:
        mode = "overlay" if found.available else "off"
    return Resolved(mode=mode, available=found.available, explicit=explicit, network=network,
                    reason=found.reason, fix=found.fix)


def for_agent(agent: Agent) -> Resolved:
    """The agent's sandbox here, resolved once (the availability probe runs a process)."""
    if agent.sandbox_resolved is None:
        agent.sandbox_resolved = resolve(agent.config.sandbox)
    return agent.sandbox_resolved

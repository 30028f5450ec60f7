"""What opening a session needs: a small typed request, built by the command line
(raw_tui/cli/) or by the session host's own (raw_tui/host/process.py). The engine never sees
an argparse namespace."""

from __future__ import annotations

from pathlib import Path

import msgspec


class SessionRequest(msgspec.Struct, frozen=True, kw_only=True):
    """`cwd` is the directory asked for, resolved (a session resumed from another directory
    runs in its own: `Session.cwd` says where); `config`, `agent`, `model` the global options;
    `continue_` reopens this directory's latest session, `resume` the one it names;
    `no_detach` keeps the session inside the UI's process (no host)."""

    cwd: Path
    config: str | None = None
    agent: str | None = None
    model: str | None = None
    continue_: bool = False
    resume: str | None = None
    no_detach: bool = False

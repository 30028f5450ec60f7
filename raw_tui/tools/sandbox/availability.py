"""Whether the sandbox can run here (docs/sandbox.md, "Availability"): Linux, bubblewrap and
`unshare` on PATH, user namespaces that may mount an overlay. Probed once per process by
really starting the boundary on two empty folders; the reason and the fix when it cannot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Availability:
    available: bool
    reason: str | None = None
    fix: str | None = None


_found: dict[str, Availability] = {}


def probe() -> Availability:
    """Once per PATH. The cyclic collector is paused meanwhile: the probe's objects are freed
    as they go, and `config list` stays within its start-up's collections."""
    import gc

    key = os.environ.get("PATH", "")
    if key not in _found:
        running = gc.isenabled()
        gc.disable()
        try:
            _found[key] = _probe()
        finally:
            if running:
                gc.enable()
    return _found[key]


def _probe() -> Availability:
    if not sys.platform.startswith("linux"):
        return Availability(False, "the sandbox needs Linux",
                            'set "sandbox": {"mode": "off"} for this agent')
    if shutil.which("bwrap") is None:
        return Availability(False, "bubblewrap is not installed",
                            "install bubblewrap (apt-get install bubblewrap)")
    if shutil.which("unshare") is None:
        return Availability(False, "unshare (util-linux) is not installed",
                            "install util-linux")
    from .boundary import probe_argv

    with tempfile.TemporaryDirectory(prefix="raw-tui-probe-") as tmp:
        argv = probe_argv(tmp)
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=PROBE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as err:
            return Availability(False, f"the sandbox did not start: {err}", _userns_fix())
        finally:
            _reap_adopted_bwrap()
    if done.returncode == 0 and done.stdout.strip() == b"ok":
        return Availability(True)
    why = done.stderr.decode("utf-8", "replace").strip().splitlines()
    detail = why[-1] if why else f"exit {done.returncode}"
    return Availability(False, _userns_reason(detail), _userns_fix())


def _reap_adopted_bwrap(wait_s: float = 1.0) -> None:
    """Wait for the probe's bubblewrap namespace init (raw_tui.tools.proctree.ADOPTED): it
    ends just after the bwrap that waited for it, as a zombie child of raw-tui."""
    import time

    from ..proctree import reap_adopted

    deadline = time.monotonic() + wait_s
    while reap_adopted()[1] and time.monotonic() < deadline:
        time.sleep(0.005)


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _userns_reason(detail: str) -> str:
    if _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return f"AppArmor restricts unprivileged user namespaces ({detail})"
    if _read("/proc/sys/kernel/unprivileged_userns_clone") == "0" \
            or _read("/proc/sys/user/max_user_namespaces") == "0":
        return f"user namespaces are disabled ({detail})"
    return f"the sandbox cannot start: {detail}"


def _userns_fix() -> str:
    if _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return ("Ubuntu 24.04: allow bwrap an AppArmor profile with `userns,` "
                "(see docs/sandbox.md), or set sandbox.mode to off")
    return ("enable user namespaces (sysctl kernel.unprivileged_userns_clone=1 and "
            "user.max_user_namespaces=15000), or set sandbox.mode to off")

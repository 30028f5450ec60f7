"""One sandboxed bash call (docs/sandbox.md): what dispatch and the bash tool call.

Dispatch makes a `SandboxCall` for each `builtin/bash` call of an agent whose sandbox is on.
In mode `overlay` it runs the call's commands in the layer before the approval (`dry_run`),
and reads the layer as observed effects; the bash handler then commits that layer instead of
running the commands again (`handle`). In mode `workspace` the handler runs the commands in
the boundary, writing the workspace directly. The bash tool itself only asks this object for
each command's argv and environment, and how many background processes ended with it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Awaitable, Callable

from ...protocol import errors
from .boundary import Boundary
from .env import child_env
from .layer import LayerRefused, Scan, bounded_diff, discarded, file_diffs, scan
from .settings import Resolved, SandboxConfig

RunCommands = Callable[[Any, Any, Any], Awaitable[dict[str, Any]]]


def expand(path: str) -> str:
    return os.path.expanduser(path) if path.startswith("~") else path


def gate_paths(config_file: Path | None, config_dir: Path | None) -> list[str]:
    """The gate's own files: the config in use, the tools/ and hooks/ folders beside it,
    $XDG_CONFIG_HOME/raw/."""
    from ...paths import config_home

    out = []
    if config_file is not None:
        out.append(str(config_file))
        base = config_dir or config_file.parent
        out += [str(base / "tools"), str(base / "hooks")]
    out.append(str(config_home()))
    return [os.path.realpath(p) for p in out]


def touches(paths: list[str], protected: list[str]) -> list[str]:
    """The paths that are, or lie under (or above), a protected path."""
    hits = []
    for path in paths:
        real = os.path.realpath(path)
        for p in protected:
            if real == p or real.startswith(p + "/") or p.startswith(real.rstrip("/") + "/"):
                hits.append(path)
                break
    return hits


class SandboxCall:
    def __init__(self, resolved: Resolved, settings: SandboxConfig | None, *, cwd: str,
                 config_file: Path | None, config_dir: Path | None) -> None:
        self.resolved = resolved
        self.settings = settings or SandboxConfig()
        self.cwd = os.path.realpath(cwd)
        self.gate = gate_paths(config_file, config_dir)
        self.committed: list[dict] = []  # {path, operation} of the last commit (file_changes)
        self.mode = resolved.mode
        self.boundary: Boundary | None = None
        self.scan: Scan | None = None
        self.base: dict | None = None
        self.replay: dict[str, Any] | None = None  # the dry run's result, committed on approve
        self.previewed = True
        self.asked = False  # dispatch: the call went to the approval
        self.cancelled = False  # an allowed call cancelled while it ran in its layer
        self.observed: dict[str, Any] | None = None
        # the session's checkpoint of the commit (raw_tui/checkpoints/record.py LayerHook)
        self.checkpoint: Any = None
        self.unobserved = False  # it ran for real, outside the overlay
        self._parts: list[tuple[str, str, str]] = []  # the dry run's (path, op, diff) per file

    # the boundary -----------------------------------------------------------------------
    def readonly(self) -> list[str]:
        paths = list(self.gate)
        paths += [os.path.join(self.cwd, ".git", "hooks"), os.path.join(self.cwd, ".git", "config")]
        for p in self.settings.protect:
            p = expand(p)
            paths.append(p if os.path.isabs(p) else os.path.join(self.cwd, p))
        return paths

    def _open(self, *, overlay: bool, dry: bool) -> Boundary:
        self.close()
        box = Boundary(workspace=self.cwd, overlay=overlay, network=self.resolved.network,
                       writable=[expand(p) for p in self.settings.writable],
                       readonly=self.readonly(), home=os.environ.get("HOME"), dry=dry)
        box.open()
        self.boundary = box
        return box

    def close(self) -> None:
        if self.boundary is not None:
            self.boundary.close()
            self.boundary = None

    # what the bash tool asks --------------------------------------------------------------
    def argv(self, command: str) -> list[str]:
        return self.boundary.argv(command)

    def env(self) -> dict[str, str]:
        return child_env(sandboxed=True, keep=self.settings.env_keep)

    def background(self) -> int:
        return self.boundary.background() if self.boundary is not None else 0

    # dispatch's side ----------------------------------------------------------------------
    async def dry_run(self, args: Any, ctx: Any, run: RunCommands, *, dry: bool) -> dict:
        """Run the commands in a fresh layer; the observed effects (a dict, the JSON of
        bus.Observed). `dry`: no network, `writable` read-only (an `ask` before approval)."""
        box = self._open(overlay=True, dry=dry)
        result = await run(args, ctx, self)
        output = "".join(b.get("text", "") for b in result.get("content", [])
                         if isinstance(b, dict))
        self.previewed = not result.get("isError")
        try:
            self.scan = scan(box.upper, self.cwd, max_bytes=self.settings.max_bytes)
        except LayerRefused as refused:
            self.scan = None
            self.replay = {"isError": True, "code": refused.code, "content": [
                {"type": "text", "text": f"{output}\n{refused.message}".lstrip()}]}
            self.previewed = False
            raise
        from .commit import baseline

        self.base = baseline(self.scan)
        self.replay = result
        # mount points bwrap made under /tmp or HOME are not the command's writes
        skip = {self.cwd, os.environ.get("HOME") or "", os.environ.get("XDG_RUNTIME_DIR") or "",
                *self.readonly(), *box.writable}
        skip.discard("")
        home = os.environ.get("HOME")
        thrown = discarded(box.tmp, "/tmp", skip)
        if home:
            thrown = discarded(box.home_upper, home, skip) + thrown
        parts = file_diffs(self.scan)
        self.observed = {"files": self.scan.files, "discarded": thrown,
                         "diff": bounded_diff(parts), "bytes": self.scan.bytes,
                         "output": output, "previewed": self.previewed,
                         "network": bool(self.resolved.network and not dry)}
        self._parts = parts
        return self.observed

    def protected_hits(self) -> list[str]:
        if self.observed is None:
            return []
        return touches([f["path"] for f in self.observed["files"]], self.gate)

    def preview_files(self) -> list[tuple[str, str, str]]:
        return list(self._parts)

    async def handle(self, args: Any, ctx: Any, run: RunCommands) -> dict[str, Any]:
        """The bash handler in a sandbox: commit the dry run's layer (its output is the
        result), or run the commands for real in mode `workspace`."""
        try:
            if self.resolved.fail_closed:
                return unavailable(self.resolved)
            if self.mode == "overlay" and self.scan is not None \
                    and (self.previewed or not self.asked):
                return self._commit(ctx)  # what ran unasked is committed as it ended
            if self.mode == "overlay" and self.replay is not None and self.scan is None:
                return self.replay  # the layer could not be committed (too large, special)
            # mode workspace, or a dry run that was not previewed: for real, in the boundary
            self.unobserved = True
            self._open(overlay=False, dry=False)
            return await run(args, ctx, self)
        finally:
            self.close()

    def _commit(self, ctx: Any) -> dict[str, Any]:
        from .commit import commit

        result = dict(self.replay)
        hook = self.checkpoint
        mark = hook.before(self.scan) if hook is not None and self.scan.files else None
        try:
            files = commit(self.scan, self.base or {})
        except LayerRefused as refused:
            if mark is not None:
                hook.void(mark)
            return {"isError": True, "code": refused.code,
                    "content": [{"type": "text", "text": refused.message}]}
        except OSError as err:
            if mark is not None:
                hook.after(mark)
            return {"isError": True, "code": errors.TOOL_ERROR,
                    "content": [{"type": "text", "text": f"commit failed part-way: {err}"}]}
        if mark is not None:
            hook.after(mark)
        self.committed = files
        return result


def unavailable(resolved: Resolved) -> dict[str, Any]:
    return {"isError": True, "code": errors.SANDBOX_UNAVAILABLE, "content": [{
        "type": "text", "text": f"sandbox unavailable: {resolved.reason}; fix: {resolved.fix}"}]}

"""The bubblewrap boundary of a sandboxed command (docs/sandbox.md, "The boundary").

Debian's bubblewrap 0.8 has no overlay options, so the layers are the kernel's overlayfs,
mounted inside a user namespace (`unshare --user --map-root-user --mount`) that then starts
bwrap in it:

- the workspace (mode `overlay`): `lowerdir` the workspace, `upperdir` the call's layer;
- HOME (both modes): an overlay of HOME whose upper layer is thrown away with the call;
- `/tmp`: a folder of the call's own, thrown away with it.

Every path the kernel's mount options name is made of safe characters: a workspace or HOME
whose name holds another (a comma, a colon) is first bind-mounted into the call's private
control folder and named there, so it mounts as well as any. bwrap then binds, shortest path first (a workspace under /tmp
or under HOME stays visible): the system read-only, /tmp, /run (hidden: an empty tmpfs),
$XDG_RUNTIME_DIR (hidden), HOME's layer, the workspace, the `writable` paths; the read-only
paths (the config, its tools/ and hooks/ folders, .git/hooks, .git/config, `protect`) last.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field

CONTROL_IN = "/run/raw-tui-sandbox"  # where the command's own bookkeeping lands, inside
SAFE_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-")

# after the command: how many processes are left in its PID namespace (bwrap's init and this
# shell are the two counted that are not the command's); they end when this shell exits
WRAPPER = ('bash -c "$1"; rc=$?; n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; '
           f'echo $((n-2)) > {CONTROL_IN}/background 2>/dev/null; exit $rc')


def _safe(path: str) -> bool:
    """A mount option can name `path` as it is."""
    return set(path) <= SAFE_CHARS


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def control_root(avoid: list[str]) -> str:
    """A folder for call layers outside the workspace and HOME (overlayfs refuses layers
    inside their lower folder), with a name the mount options can carry."""
    for base in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"):
        try:
            base = os.path.realpath(base)
        except OSError:
            continue
        if not os.path.isdir(base) or not _safe(base):
            continue
        if any(_inside(base, a) for a in avoid if a):
            continue
        return base
    raise OSError("no folder for the sandbox's layer outside the workspace and HOME")


@dataclass
class Boundary:
    """One call's boundary. `dry`: a dry run (no network, `writable` read-only)."""

    workspace: str
    overlay: bool
    network: bool = False
    writable: list[str] = field(default_factory=list)
    readonly: list[str] = field(default_factory=list)
    home: str | None = None
    dry: bool = False
    control: str = ""

    def open(self) -> None:
        root = control_root([self.workspace, self.home or ""])
        self.control = tempfile.mkdtemp(prefix=f"raw-tui-sandbox-{os.getuid()}-", dir=root)
        names = ["tmp", "in"]
        if self.home_dir():
            names += ["hupper", "hwork", "home"] + ([] if _safe(self.home) else ["hlower"])
        if self.overlay:
            names += ["upper", "work"] + ([] if _safe(self.workspace) else ["lower"])
        for name in names:  # only the folders this call mounts (each mkdir costs here)
            os.mkdir(os.path.join(self.control, name), 0o700)

    def home_dir(self) -> str | None:
        """HOME, when there is one to lay a throwaway layer over."""
        return self.home if self.home and os.path.isdir(self.home) else None

    @property
    def upper(self) -> str:
        return os.path.join(self.control, "upper")

    @property
    def home_upper(self) -> str:
        return os.path.join(self.control, "hupper")

    @property
    def tmp(self) -> str:
        return os.path.join(self.control, "tmp")

    def close(self) -> None:
        if self.control:
            remove_tree(self.control)
            self.control = ""

    def background(self) -> int:
        """How many processes the last command left (ended with it); the count is read once."""
        path = os.path.join(self.control, "in", "background")
        try:
            with open(path) as f:
                count = int(f.read().strip() or 0)
            os.unlink(path)
        except (OSError, ValueError):
            return 0
        return max(count, 0)

    def argv(self, command: str) -> list[str]:
        c = self.control
        mounts = []
        home = self.home_dir()
        if home:
            lower = self._lower(home, "$2", f"{c}/hlower", mounts)
            mounts.append(f"mount -t overlay overlay -o lowerdir={lower},upperdir={c}/hupper,"
                          f"workdir={c}/hwork,userxattr {c}/home")
        if self.overlay:
            lower = self._lower(self.workspace, "$1", f"{c}/lower", mounts)
            mounts.append(f"mount -t overlay overlay -o lowerdir={lower},upperdir={c}/upper,"
                          f'workdir={c}/work,userxattr "$1"')
        script = " && ".join(mounts + ['shift 2', 'exec "$@"'])
        return ["unshare", "--user", "--map-root-user", "--mount", "--",
                "/bin/sh", "-c", script, "sh", self.workspace, home or "",
                *self._bwrap(home, command)]

    @staticmethod
    def _lower(path: str, arg: str, bound: str, mounts: list[str]) -> str:
        """The name a mount option gives `path` (the script's `arg`): itself when the option can
        carry it, else `bound`, a bind mount of it made first. Each `mount` run costs about
        1.5 ms; most paths need none."""
        if _safe(path):
            return path
        mounts.append(f'mount --bind "{arg}" {bound}')
        return bound

    def _bwrap(self, home: str | None, command: str) -> list[str]:
        binds: list[tuple[str, list[str]]] = [("/tmp", ["--bind", self.tmp, "/tmp"]),
                                              ("/run", ["--tmpfs", "/run"])]
        runtime = os.environ.get("XDG_RUNTIME_DIR")
        if runtime and os.path.isdir(runtime) and not _inside(self.workspace, runtime):
            binds.append((runtime, ["--tmpfs", runtime]))
        if home:
            binds.append((home, ["--bind", os.path.join(self.control, "home"), home]))
        binds.append((self.workspace, ["--bind", self.workspace, self.workspace]))
        for path in self.writable:
            if os.path.exists(path):
                flag = "--ro-bind" if self.dry else "--bind"
                binds.append((path, [flag, path, path]))
        binds.sort(key=lambda b: b[0].rstrip("/").count("/"))
        argv = ["bwrap", "--unshare-user", "--uid", str(os.getuid()), "--gid", str(os.getgid()),
                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for _, flags in binds:
            argv += flags
        argv += ["--bind", os.path.join(self.control, "in"), CONTROL_IN]
        for path in self.readonly:
            if os.path.lexists(path) and not os.path.islink(path):
                argv += ["--ro-bind", path, path]
        if self.dry or not self.network:
            argv.append("--unshare-net")
        argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                 "--new-session", "--chdir", self.workspace, "--",
                 "/bin/sh", "-c", WRAPPER, "sh", command]
        return argv


def remove_tree(path: str) -> None:
    """Remove a control folder (overlayfs leaves a mode-000 `work` folder behind)."""

    def fix(func, failed, _exc):
        try:
            os.chmod(os.path.dirname(failed), 0o700)
            os.chmod(failed, 0o700)
        except OSError:
            pass
        try:
            if os.path.isdir(failed) and not os.path.islink(failed):
                shutil.rmtree(failed, ignore_errors=True)
            else:
                os.unlink(failed)
        except OSError:
            pass

    shutil.rmtree(path, onexc=fix) if _has_onexc() else shutil.rmtree(path, onerror=fix)


def _has_onexc() -> bool:
    import sys

    return sys.version_info >= (3, 12)


def probe_argv(tmp: str) -> list[str]:
    """A tiny boundary on `tmp` (an empty folder): prints `ok` when the sandbox can run."""
    for name in ("w", "u", "d", "l"):
        os.mkdir(os.path.join(tmp, name))
    w = os.path.join(tmp, "w")
    script = (f"mount --bind {shlex.quote(w)} {shlex.quote(tmp)}/l && "
              f"mount -t overlay overlay -o lowerdir={tmp}/l,upperdir={tmp}/u,workdir={tmp}/d,"
              f'userxattr {shlex.quote(w)} && exec "$@"')
    return ["unshare", "--user", "--map-root-user", "--mount", "--", "/bin/sh", "-c", script,
            "sh", "bwrap", "--unshare-user", "--uid", str(os.getuid()), "--gid",
            str(os.getgid()), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--bind", w, w, "--unshare-net", "--unshare-pid", "--die-with-parent",
            "--", "/bin/sh", "-c", "echo ok"]

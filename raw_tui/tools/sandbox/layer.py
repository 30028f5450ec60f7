"""An overlay's upper layer read as the call's observed effects (docs/sandbox.md, "Observed
effects"), and the plan that commits it.

In an upper layer (kernel overlayfs with `userxattr`): a deleted entry is a character device
0:0 (a whiteout); a directory removed and made again carries `user.overlay.opaque=y` (what was
under it below is gone); a changed file is a whole copy. A layer with redirected directories
or metacopy files is refused (this mount never makes them). Entries are compared with the
workspace below: a file copied up unchanged (opened for writing, touched) is no change.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field

from ...protocol.errors import SANDBOX_UNSUPPORTED

MAX_DIFF_BYTES = 256 * 1024
MAX_DIFF_FILE_BYTES = 1024 * 1024  # a bigger text file is named, not diffed
OPAQUE = ("user.overlay.opaque", "trusted.overlay.opaque")
REFUSED_XATTRS = ("user.overlay.redirect", "trusted.overlay.redirect",
                  "user.overlay.metacopy", "trusted.overlay.metacopy")


class LayerRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass
class Step:
    """One commit step, parents before children: `delete`, `dir`, `file`, `symlink`;
    `clear` (an opaque directory: remove what is below and not in the layer)."""

    action: str
    rel: str
    source: str = ""  # the entry in the layer
    keep: tuple[str, ...] = ()  # clear: names the layer holds


@dataclass
class Scan:
    files: list[dict] = field(default_factory=list)  # {path, operation, kind}
    steps: list[Step] = field(default_factory=list)
    bytes: int = 0
    watched: list[str] = field(default_factory=list)  # workspace paths the commit depends on
    upper: str = ""
    workspace: str = ""


def kind_of(st: os.stat_result | None) -> str:
    if st is None:
        return "file"
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    if stat.S_ISLNK(st.st_mode):
        return "symlink"
    return "file"


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _xattr(path: str, name: str) -> bytes | None:
    try:
        return os.getxattr(path, name, follow_symlinks=False)
    except OSError:
        return None


def is_whiteout(st: os.stat_result) -> bool:
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == 0


def _same_file(a: str, b: str, sa: os.stat_result, sb: os.stat_result) -> bool:
    if sa.st_size != sb.st_size or stat.S_IMODE(sa.st_mode) != stat.S_IMODE(sb.st_mode):
        return False
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(1 << 16), fb.read(1 << 16)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


def scan(upper: str, workspace: str, *, max_bytes: int) -> Scan:
    """Read the layer; LayerRefused for a special file, a redirect, or more than max_bytes."""
    out = Scan(upper=upper, workspace=workspace)
    _walk(out, "", max_bytes, False)
    return out


def _walk(out: Scan, rel_dir: str, max_bytes: int, hidden: bool) -> None:
    """`hidden`: an opaque folder above hides everything below it (its folders are new)."""
    here = os.path.join(out.upper, rel_dir)
    with os.scandir(here) as it:
        names = sorted(e.name for e in it)
    for name in names:
        rel = os.path.join(rel_dir, name) if rel_dir else name
        source = os.path.join(out.upper, rel)
        target = os.path.join(out.workspace, rel)
        st = os.lstat(source)
        below = _lstat(target)
        for refused in REFUSED_XATTRS:
            if _xattr(source, refused) is not None:
                raise LayerRefused(SANDBOX_UNSUPPORTED, f"{target}: a redirected or metacopy "
                                   "entry in the layer cannot be committed")
        out.watched.append(rel)
        if is_whiteout(st):
            if below is not None:
                out.files.append({"path": target, "operation": "delete", "kind": kind_of(below)})
                out.steps.append(Step("delete", rel))
            continue
        if stat.S_ISDIR(st.st_mode):
            opaque = hidden or any(_xattr(source, n) == b"y" for n in OPAQUE)
            was_dir = below is not None and stat.S_ISDIR(below.st_mode)
            if not was_dir or stat.S_IMODE(below.st_mode) != stat.S_IMODE(st.st_mode):
                out.files.append({"path": target, "operation": "write", "kind": "dir"})
            out.steps.append(Step("dir", rel, source))
            if opaque and was_dir:
                keep = tuple(sorted(os.listdir(source)))
                try:
                    gone = sorted(set(os.listdir(target)) - set(keep))
                except OSError:
                    gone = []
                for child in gone:
                    child_st = _lstat(os.path.join(target, child))
                    out.files.append({"path": os.path.join(target, child),
                                      "operation": "delete", "kind": kind_of(child_st)})
                    out.watched.append(os.path.join(rel, child))
                out.steps.append(Step("clear", rel, source, keep))
            _walk(out, rel, max_bytes, opaque)
            continue
        if stat.S_ISLNK(st.st_mode):
            if below is None or not stat.S_ISLNK(below.st_mode) \
                    or os.readlink(target) != os.readlink(source):
                out.files.append({"path": target, "operation": "write", "kind": "symlink"})
                out.steps.append(Step("symlink", rel, source))
            continue
        if not stat.S_ISREG(st.st_mode):
            raise LayerRefused(SANDBOX_UNSUPPORTED, f"{target}: a fifo, socket or device file "
                               "cannot be committed")
        out.bytes += st.st_size
        if out.bytes > max_bytes:
            from ...protocol.errors import SANDBOX_TOO_LARGE

            raise LayerRefused(SANDBOX_TOO_LARGE, f"the layer holds more than {max_bytes} "
                               "bytes (sandbox.max_bytes); nothing was committed")
        if below is not None and stat.S_ISREG(below.st_mode) and st.st_nlink == 1 \
                and _same_file(source, target, st, below):
            continue  # copied up, not changed
        out.files.append({"path": target, "operation": "write", "kind": "file"})
        out.steps.append(Step("file", rel, source))


def discarded(root: str, shown_as: str, skip: set[str]) -> list[str]:
    """The paths written in a thrown-away layer (HOME's, /tmp's), each top entry standing
    for what was written under it; `skip`: mount points bwrap made (not the command)."""
    found: list[str] = []

    def walk(rel: str) -> None:
        here = os.path.join(root, rel)
        try:
            names = sorted(os.listdir(here))
        except OSError:
            return
        for name in names:
            child = os.path.join(rel, name) if rel else name
            shown = os.path.join(shown_as, child)
            if any(s == shown or s.startswith(shown + "/") for s in skip):
                if os.path.isdir(os.path.join(root, child)) and shown not in skip:
                    walk(child)
                continue
            found.append(shown)

    walk("")
    return found


# the diff ---------------------------------------------------------------------------------

def _text(path: str) -> str | None:
    """A file's text, or None when it is binary or too big to diff."""
    try:
        if os.path.getsize(path) > MAX_DIFF_FILE_BYTES:
            return None
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def file_diffs(s: Scan) -> list[tuple[str, str, str]]:
    """(path, operation, diff text) per changed entry outside .git/ (whose internals are one
    summary line), in the layer's order."""
    out: list[tuple[str, str, str]] = []
    git = 0
    for entry in s.files:
        path, op, kind = entry["path"], entry["operation"], entry["kind"]
        rel = os.path.relpath(path, s.workspace)
        if rel == ".git" or rel.startswith(".git/"):
            git += 1
            continue
        out.append((path, op, _one_diff(s, rel, op, kind)))
    if git:
        out.append((os.path.join(s.workspace, ".git"), "write",
                    f".git/: {git} internal path{'s' if git > 1 else ''} changed (not shown)\n"))
    return out


def _one_diff(s: Scan, rel: str, op: str, kind: str) -> str:
    target = os.path.join(s.workspace, rel)
    source = os.path.join(s.upper, rel)
    below = _lstat(target)
    if kind == "dir":
        return f"{'deleted' if op == 'delete' else 'directory'} {rel}/\n"
    if kind == "symlink" and op == "write":
        return f"symlink {rel} -> {os.readlink(source)}\n"
    if op == "delete":
        if below is not None and stat.S_ISLNK(below.st_mode):
            return f"deleted symlink {rel}\n"
        old = _text(target)
        if old is None:
            return f"deleted binary file {rel}\n"
        return _unified(old, "", rel, "/dev/null")
    head = ""
    old: str | None = ""
    if below is not None and stat.S_ISREG(below.st_mode):
        old = _text(target)
        new_mode = stat.S_IMODE(os.lstat(source).st_mode)
        if stat.S_IMODE(below.st_mode) != new_mode:
            head = f"mode {stat.S_IMODE(below.st_mode):o} -> {new_mode:o} {rel}\n"
    new = _text(source)
    if old is None or new is None:
        return head + f"binary file {rel} {'changed' if below is not None else 'created'}\n"
    return head + _unified(old, new, rel if below is not None else "/dev/null", rel)


def _unified(old: str, new: str, a: str, b: str) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=a if a == "/dev/null" else f"a/{a}",
                                 tofile=b if b == "/dev/null" else f"b/{b}")
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    return text


def bounded_diff(parts: list[tuple[str, str, str]]) -> str:
    text = "".join(d for _, _, d in parts)
    data = text.encode("utf-8", "replace")
    if len(data) <= MAX_DIFF_BYTES:
        return text
    cut = data[:MAX_DIFF_BYTES].decode("utf-8", "ignore")
    return cut + f"\n[... diff cut at {MAX_DIFF_BYTES} bytes ...]\n"

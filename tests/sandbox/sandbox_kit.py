"""Helpers for the sandbox tests: real bubblewrap through the real command line.

`needs_sandbox`: a test that needs the sandbox skips where it cannot run — except in CI
(`CI` set), where it fails: scripts/test installs bubblewrap there."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from raw_tui.tools.sandbox.availability import probe
from tests.config_kit import raw_tui, write_config

ASK_ALL = [{"match": "builtin/bash", "effect": "ask"}]
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def needs_sandbox():
    found = probe()
    if not found.available:
        message = f"the sandbox cannot run here: {found.reason} ({found.fix})"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def config(dir: Path, *, sandbox: dict | None = None, rules: list | None = None,
           tools: list | None = None) -> Path:
    agent: dict = {"tools": {"use": tools or ["builtin/bash"], "rules": rules or []}}
    if sandbox is not None:
        agent["sandbox"] = sandbox
    return write_config(dir, agent)


def call(cfg: Path, cwd: Path, command: str | list[str], *extra: str, env: dict | None = None,
         timeout: float = 120):
    commands = [command] if isinstance(command, str) else command
    args = {"commands": [{"command": c} for c in commands]}
    proc = raw_tui("--config", str(cfg), "--cwd", str(cwd), "call", "builtin/bash",
                   "--args", json.dumps(args), *extra, env=env, timeout=timeout)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def text_of(report: dict) -> str:
    result = report.get("result") or {}
    return "".join(b.get("text", "") for b in result.get("content", []))


def tree(root: Path) -> dict:
    """Everything a commit must keep: kind, mode, content, symlink target, hard links
    (`.git/index`'s content aside: its stat cache differs)."""
    out: dict = {}
    inodes: dict[int, list[str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            st = os.lstat(path)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("symlink", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", mode)
            else:
                data = b"" if rel == ".git/index" else path.read_bytes()
                out[rel] = ("file", mode, data)
                inodes.setdefault(st.st_ino, []).append(rel)
    out["(hard links)"] = sorted(sorted(v) for v in inodes.values() if len(v) > 1)
    return out


def run_direct(cwd: Path, command: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)

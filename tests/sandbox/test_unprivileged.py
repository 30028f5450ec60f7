"""The equivalence and escape tests again as an unprivileged user (CI runs as root, and the
paths and rights differ): a user made for the test (`useradd`), every command through
`runuser`. Where the tests already run unprivileged, the other files cover it."""

from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.config_kit import REPO
from tests.sandbox.sandbox_kit import ASK_ALL, GIT_ENV, needs_sandbox, tree  # noqa: F401
from tests.sandbox.test_equivalence import SCENARIOS, SETUP

USER = f"rawsbx{os.getpid() % 100000}"
PYTHON = "/usr/bin/python3"


def _python_for_user() -> str | None:
    """An interpreter the user may run with this venv's packages (same minor version)."""
    if not os.access(PYTHON, os.X_OK):
        return None
    done = subprocess.run([PYTHON, "-c", "import sys; print(sys.version_info[:2])"],
                          capture_output=True, text=True)
    return PYTHON if done.stdout.strip() == str(tuple(sys.version_info[:2])) else None


@pytest.fixture(scope="module")
def user():
    if os.getuid() != 0:
        pytest.skip("already unprivileged: the other sandbox tests are this variant")
    if shutil.which("useradd") is None or shutil.which("runuser") is None \
            or _python_for_user() is None:
        message = "useradd, runuser or a system python3 of this version is missing"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    subprocess.run(["useradd", "-M", "-d", "/nonexistent", "-s", "/bin/sh", USER], check=True)
    base = Path(tempfile.mkdtemp(prefix="raw-tui-unpriv-", dir="/tmp"))
    base.chmod(0o755)
    shutil.chown(base, USER)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)
        subprocess.run(["userdel", USER], check=False)


def site_packages() -> str:
    import msgspec

    return str(Path(msgspec.__file__).resolve().parent.parent)


def as_user(base: Path, argv: list[str], cwd: Path, env: dict | None = None):
    home = base / "home"
    full = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
            "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
            "PYTHONPATH": f"{REPO}:{site_packages()}", **GIT_ENV, **(env or {})}
    return subprocess.run(["runuser", "-u", USER, "--", "env", "-i",
                           *[f"{k}={v}" for k, v in full.items()], *argv],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def mkdir_as_user(base: Path, path: Path) -> Path:
    done = as_user(base, ["mkdir", "-p", str(path)], cwd=base)
    assert done.returncode == 0, done.stderr
    return path


def write_cfg(base: Path, name: str, agent_extra: dict) -> Path:
    cfg = mkdir_as_user(base, base / name)
    data = {"models": {"m": {"method": "scripted", "script": "script.jsonl"}},
            "agents": {"main": {"model": "m", "tools": {"use": ["builtin/bash"],
                                                        "rules": agent_extra.pop("rules", [])},
                                **agent_extra}}}
    (cfg / "raw.json").write_text(json.dumps(data))
    (cfg / "script.jsonl").write_text("")
    for p in (cfg / "raw.json", cfg / "script.jsonl"):
        shutil.chown(p, USER)
    return cfg / "raw.json"


def call(base: Path, cfg: Path, cwd: Path, command: str, *extra: str, env: dict | None = None):
    args = json.dumps({"commands": [{"command": command}]})
    done = as_user(base, [PYTHON, "-m", "raw_tui.cli", "--config", str(cfg), "--cwd", str(cwd),
                          "call", "builtin/bash", "--args", args, *extra], cwd=cwd, env=env)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def workspace(base: Path, name: str) -> Path:
    ws = mkdir_as_user(base, base / name)
    done = as_user(base, ["bash", "-c", SETUP], cwd=ws)
    assert done.returncode == 0, done.stderr
    return ws


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_equivalence_as_an_unprivileged_user(user, needs_sandbox, scenario):
    base = Path(tempfile.mkdtemp(dir=user))
    base.chmod(0o755)
    shutil.chown(base, USER)
    mkdir_as_user(user, user / "home")
    direct, layered = workspace(base, "direct"), workspace(base, "layered")
    done = as_user(user, ["bash", "-c", SCENARIOS[scenario]], cwd=direct)
    assert done.returncode == 0, done.stderr
    cfg = write_cfg(base, "cfg", {"rules": list(ASK_ALL)})
    rc, report = call(user, cfg, layered, SCENARIOS[scenario], "--approve", "yes")
    assert rc == 0 and report["observed"]["previewed"], report
    assert tree(layered) == tree(direct)


def test_escapes_as_an_unprivileged_user(user, needs_sandbox):
    base = Path(tempfile.mkdtemp(dir=user))
    base.chmod(0o755)
    shutil.chown(base, USER)
    mkdir_as_user(user, user / "home")
    ws = workspace(base, "ws")
    as_user(user, ["bash", "-c", "git init -q . && mkdir -p hooks/x && echo '{}' > "
                                 "hooks/x/hook.json"], cwd=ws)
    deny = [{"match": "builtin/bash", "effect": "deny",
             "when": {"source": "observed", "any": "files[*].path", "regex": "\\.env$"}}]
    # the config inside the workspace: read-only from bash
    cfg = ws / "raw.json"
    cfg.write_text(json.dumps({"models": {"m": {"method": "scripted", "script": "s.jsonl"}},
                               "agents": {"main": {"model": "m", "tools": {
                                   "use": ["builtin/bash"], "rules": deny}}}}))
    (ws / "s.jsonl").write_text("")
    for p in (cfg, ws / "s.jsonl"):
        shutil.chown(p, USER)
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    for target in ("raw.json", "hooks/x/hook.json", ".git/hooks/pre-commit", ".git/config"):
        rc, report = call(user, cfg, ws, f"echo pwned > {target}")
        assert rc == 1, (target, report)
    assert {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()} == before
    rc, report = call(user, cfg, ws, "printf x | tee .env")
    assert report["code"] == "tool_denied" and not (ws / ".env").exists()
    rc, report = call(user, cfg, ws, "(sleep 1; echo late > late) & env",
                      env={"OPENAI_API_KEY": "sk-1", "GH_TOKEN": "t-1", "PLAIN": "p-1"})
    out = report["result"]["content"][0]["text"]
    assert "PLAIN=p-1" in out and "sk-1" not in out and "t-1" not in out
    assert re.search(r"\n[12] background process(es)? ended with the command$", out), out
    import time

    time.sleep(1.5)
    assert not (ws / "late").exists()
    rc, report = call(user, cfg, ws, "python3 -c \"import socket; "
                                     "socket.create_connection(('1.1.1.1', 53), timeout=2)\"")
    assert rc == 1 and "Network is unreachable" in report["result"]["content"][0]["text"]

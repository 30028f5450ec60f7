"""Preview + commit == a direct run: for each scenario, the same command run directly in one
copy of a workspace, and through `raw-tui call` (an `ask` rule: the dry run in the layer,
then `--approve yes` commits it) in another, leaves both byte for byte alike — content, kind,
mode, symlink targets, hard links (`.git/index`'s stat cache aside)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sandbox.sandbox_kit import ASK_ALL, GIT_ENV, call, config, needs_sandbox, run_direct, tree

SETUP = """
printf 'a\\n' > a; printf 'b\\n' > b; mkdir -p d/sub; printf 'x\\n' > d/x;
printf 'y\\n' > d/sub/y; ln -s a lk; printf 'h\\n' > h1; ln h1 h2; chmod 640 b
"""

SCENARIOS = {
    "edit": "echo more >> a",
    "create": "echo new > n && mkdir -p fresh/deep && echo z > fresh/deep/z",
    "delete": "rm a d/x",
    "recreate a directory": "rm -rf d && mkdir d && echo again > d/x",
    "nested recreate": "rm -rf d && mkdir -p d/sub/deeper && echo q > d/sub/deeper/q",
    "file to directory": "rm a && mkdir a && echo in > a/in",
    "directory to file": "rm -rf d && echo now-a-file > d",
    "rename a file": "mv a renamed && mv d/x d/sub/x2",
    "rename a directory (mv copies)": "mv d moved",
    "symlink create": "ln -s d/x newlink && ln -s /nowhere dangling",
    "symlink re-point": "ln -sfn b lk",
    "chmod": "chmod 755 a && chmod 700 d/sub",
    "rm -rf ./*": "rm -rf ./*",
    "truncate": ": > a && truncate -s 1 b",
    "unicode and space names": "echo x > 'é ü space.txt' && mkdir 'dir ñ' && echo y > 'dir ñ/ß ø'",
    "hard links": "echo more >> h1 && ln a a-link && ln b d/b-link",
    "git init and commit": "git init -q . && git add -A && git commit -qm first",
    "a large file": "yes 0123456789abcdef | head -c 3000000 > big && cp big big2",
    "binary replace": "printf '\\0\\1\\2' > a",
}


def workspace(root: Path, name: str) -> Path:
    path = root / name
    path.mkdir()
    done = run_direct(path, SETUP)
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_preview_and_commit_equal_a_direct_run(scenario, tmp_path, needs_sandbox):
    command = SCENARIOS[scenario]
    direct = workspace(tmp_path, "direct")
    layered = workspace(tmp_path, "layered")
    done = run_direct(direct, command, GIT_ENV)
    assert done.returncode == 0, done.stderr
    cfg = config(tmp_path / "cfg", rules=ASK_ALL)
    rc, report = call(cfg, layered, command, "--approve", "yes", env=GIT_ENV)
    assert rc == 0, report
    assert report["approval_requested"] and report["observed"]["previewed"], report
    assert tree(layered) == tree(direct)


def test_the_dry_run_alone_changes_nothing(tmp_path, needs_sandbox):
    ws = workspace(tmp_path, "ws")
    before = tree(ws)
    cfg = config(tmp_path / "cfg", rules=ASK_ALL)
    rc, report = call(cfg, ws, "rm -rf ./* && echo x > new")
    assert (rc, report["code"]) == (1, "approval_required")
    paths = {(f["path"], f["operation"]) for f in report["observed"]["files"]}
    assert (str(ws / "new"), "write") in paths and (str(ws / "d"), "delete") in paths
    assert tree(ws) == before
    rc, report = call(cfg, ws, "rm -rf ./*", "--approve", "no")
    assert report["code"] == "approval_denied"
    assert tree(ws) == before
    rc, report = call(cfg, ws, "echo x > new2", "--dry-run")
    assert report["observed"]["files"] == [
        {"path": str(ws / "new2"), "operation": "write", "kind": "file"}]
    assert tree(ws) == before


def test_an_allowed_call_commits_at_once(tmp_path, needs_sandbox):
    ws = workspace(tmp_path, "ws")
    cfg = config(tmp_path / "cfg")
    rc, report = call(cfg, ws, ["echo one > one", "echo two > two"])
    assert rc == 0 and not report["approval_requested"], report
    assert (ws / "one").read_text() == "one\n" and (ws / "two").read_text() == "two\n"
    assert os.path.exists(ws / "a")

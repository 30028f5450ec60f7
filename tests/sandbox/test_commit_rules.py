"""What a commit refuses: special files (`sandbox_unsupported`), a layer over `max_bytes`
(`sandbox_too_large`), a path whose folder became a symlink (never followed)."""

from __future__ import annotations

import os
import subprocess

import pytest

from raw_tui.tools.sandbox.boundary import Boundary
from raw_tui.tools.sandbox.commit import apply
from raw_tui.tools.sandbox.layer import scan
from tests.sandbox.sandbox_kit import ASK_ALL, call, config, needs_sandbox, text_of  # noqa: F401


@pytest.mark.parametrize("command", ["mkfifo pipe", "python3 -c \"import socket; "
                                     "socket.socket(socket.AF_UNIX).bind('sock')\""])
def test_special_files_refuse_the_commit(tmp_path, needs_sandbox, command):
    ws = tmp_path / "ws"
    ws.mkdir()
    cfg = config(tmp_path / "cfg")
    rc, report = call(cfg, ws, f"echo a > a && {command}")
    assert (rc, report["code"], report["stage"]) == (1, "sandbox_unsupported", "sandbox"), report
    assert os.listdir(ws) == []


def test_a_layer_over_max_bytes_commits_nothing(tmp_path, needs_sandbox):
    ws = tmp_path / "ws"
    ws.mkdir()
    cfg = config(tmp_path / "cfg", sandbox={"max_bytes": 4096}, rules=ASK_ALL)
    rc, report = call(cfg, ws, "echo small > s && head -c 10000 /dev/zero > big",
                      "--approve", "yes")
    assert (rc, report["code"]) == (1, "sandbox_too_large"), report
    assert "max_bytes" in report["message"]
    assert os.listdir(ws) == []


def test_a_folder_turned_symlink_is_never_followed(tmp_path, needs_sandbox):
    ws = tmp_path / "ws"
    (ws / "d").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    box = Boundary(workspace=str(ws), overlay=True, home=None)
    box.open()
    try:
        done = subprocess.run(box.argv("echo x > d/new"), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        layer = scan(box.upper, str(ws), max_bytes=1 << 20)
        (ws / "d").rmdir()
        (ws / "d").symlink_to(outside)  # swapped after the dry run
        apply(layer)  # (dispatch's conflict check refuses this first; apply alone:)
        assert os.listdir(outside) == []  # not followed: the symlink was replaced
        assert not (ws / "d").is_symlink() and (ws / "d" / "new").read_text() == "x\n"
    finally:
        box.close()


@pytest.mark.parametrize("name", ["plain", "a,b:c d"])
def test_a_workspace_and_home_of_any_name_are_overlaid(tmp_path, needs_sandbox, name):
    """A name a mount option cannot carry (a comma, a colon, a space) is bind-mounted into the
    control folder first; a plain one is named directly. Either way the dry run writes only
    its layer, the commit lands in the workspace, and HOME's layer is thrown away."""
    ws = tmp_path / f"ws-{name}"
    home = tmp_path / f"home-{name}"
    ws.mkdir()
    home.mkdir()
    (home / "keep").write_text("home\n")
    cfg = config(tmp_path / "cfg", rules=ASK_ALL)
    rc, report = call(cfg, ws, "echo made > f && echo scribble > ~/keep && cat ~/keep",
                      "--approve", "yes", env={"HOME": str(home)})
    assert rc == 0, report
    assert (ws / "f").read_text() == "made\n"
    assert (home / "keep").read_text() == "home\n"
    assert "scribble" in text_of(report)

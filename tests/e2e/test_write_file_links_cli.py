"""`raw-tui call write_file` through a symbolic link, driven as a user would (a real
subprocess): the write is refused as Raw refuses it and nothing lands outside."""

from __future__ import annotations

import json

import pytest

from tests.config_kit import raw_tui, write_config


@pytest.fixture
def workspace(tmp_path):
    cwd, outside = tmp_path / "work", tmp_path / "outside"
    cwd.mkdir()
    outside.mkdir()
    (cwd / "linked").symlink_to(outside)
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/write_file"], "rules": [
        {"match": "builtin/write_file", "effect": "ask", "when": {
            "source": "effects", "any": "files[*].path", "regex": "outside"}}]}})
    return cfg, cwd, outside


def call(cfg, cwd, args):
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(cwd), "call", "write_file",
                   "--args", json.dumps(args), "--approve", "yes")
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("args, code", [
    ({"patch": "*** Begin Patch\n*** Add File: linked/file\n+no\n*** End Patch"},
     "patch_preflight_failed"),
    ({"operations": [{"mode": "overwrite", "path": "linked/file", "content": "no"}]},
     "tool_error"),
])
def test_a_write_through_a_symlinked_directory_is_refused(workspace, args, code):
    """Raw `tests/write-patch.test.ts`, "rejects invalid dialect duplicate paths binary bytes
    and symlink parents": `*** Add File: linked/file`, `linked` -> a directory outside the
    working directory. The rule asking for writes to `outside` never sees the real target
    (effects are lexical: `.../work/linked/file`), so the tool itself must refuse."""
    cfg, cwd, outside = workspace
    rc, report = call(cfg, cwd, args)
    assert rc == 1
    assert report["effects"] == {"files": [{"path": str(cwd / "linked/file"),
                                            "operation": "write"}]}
    assert report["approval_requested"] is False
    assert (report["outcome"], report["stage"], report["code"]) == ("ran", "handler", code)
    assert f"patch_symlink_path: {cwd}/linked is a symbolic link (to {outside})" \
        in report["message"]
    assert list(outside.iterdir()) == []

"""A bash command that writes through a hard link: the layer's commit writes the file in
place, so every name of it changes; its checkpoint records every name in the workspace, and
the undo puts the content back in place, both names restored and still one file."""

from __future__ import annotations

import os

from tests.checkpoints.checkpoint_kit import Session, bash
from tests.sandbox.sandbox_kit import needs_sandbox  # noqa: F401


def test_undo_of_a_write_through_a_hard_link_restores_both_names(tmp_path, needs_sandbox):
    s = Session(tmp_path, [bash("printf 'added\\n' >> a.txt; chmod 600 a.txt")])
    a, b = s.work / "a.txt", s.work / "sub" / "b.txt"
    a.write_text("original\n")
    os.chmod(a, 0o644)
    b.parent.mkdir()
    os.link(a, b)
    s.turn()
    assert b.read_text() == "original\nadded\n"  # written in place: both names changed
    assert os.stat(a).st_ino == os.stat(b).st_ino
    code, report, _ = s.undo("--turn", "1")
    assert code == 0, report
    assert {f["path"]: f["action"] for f in report["files"]} == {
        str(a): "restored", str(b): "restored"}
    assert a.read_text() == "original\n" and b.read_text() == "original\n"
    assert os.stat(a).st_ino == os.stat(b).st_ino and os.stat(a).st_nlink == 2
    assert os.stat(b).st_mode & 0o777 == 0o644

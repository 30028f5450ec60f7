"""write_file's handler on real files: operations, patches, atomicity, all-or-nothing."""

from __future__ import annotations

import hashlib
import os
import stat

import pytest
from builtin_kit import call, listing, write_file  # noqa: F401 (fixtures)

from raw_tui.protocol.errors import PATCH_PREFLIGHT_FAILED, TOOL_ERROR, RawError
from raw_tui.tools import fsatomic


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_overwrite_append_create_files_and_parents(write_file, tmp_path):
    out = call(write_file, {"operations": [
        {"mode": "overwrite", "path": "d/e/a.txt", "content": "hello\n"},
        {"mode": "append", "path": "d/e/a.txt", "content": "world\n"},
        {"mode": "append", "path": "b.txt", "content": "new"},
    ]}, tmp_path)
    assert (tmp_path / "d/e/a.txt").read_text() == "hello\nworld\n"
    assert (tmp_path / "b.txt").read_text() == "new"
    assert out == f"wrote {tmp_path}/d/e/a.txt (12 bytes)\nwrote {tmp_path}/b.txt (3 bytes)"


def test_replace_text_once_absent_and_ambiguous(write_file, tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("alpha beta gamma beta\n")
    call(write_file, {"operations": [
        {"mode": "replace_text", "path": "t.txt", "old_text": "alpha", "new_text": "A"}]}, tmp_path)
    assert f.read_text() == "A beta gamma beta\n"
    with pytest.raises(RawError, match="not found"):
        call(write_file, {"operations": [
            {"mode": "replace_text", "path": "t.txt", "old_text": "zeta", "new_text": "Z"}]},
            tmp_path)
    with pytest.raises(RawError, match="occurs 2 times"):
        call(write_file, {"operations": [
            {"mode": "replace_text", "path": "t.txt", "old_text": "beta", "new_text": "B"}]},
            tmp_path)
    assert f.read_text() == "A beta gamma beta\n"


@pytest.mark.parametrize("start, end, content, expected", [
    (2, 3, "X\nY\n", "1\nX\nY\n4\n"),
    (2, 3, "X", "1\nX\n4\n"),
    (2, 2, "", "1\n3\n4\n"),
    (3, 2, "new", "1\n2\nnew\n3\n4\n"),  # end = start - 1 inserts
    (5, 4, "tail", "1\n2\n3\n4\ntail\n"),
    (4, 4, "last\n", "1\n2\n3\nlast\n"),
])
def test_replace_lines(write_file, tmp_path, start, end, content, expected):
    f = tmp_path / "n.txt"
    f.write_text("1\n2\n3\n4\n")
    call(write_file, {"operations": [{"mode": "replace_lines", "path": "n.txt",
                                      "start_line": start, "end_line": end,
                                      "content": content}]}, tmp_path)
    assert f.read_text() == expected


def test_replace_lines_keeps_a_missing_final_newline_and_checks_the_range(write_file, tmp_path):
    f = tmp_path / "n.txt"
    f.write_text("1\n2")
    call(write_file, {"operations": [{"mode": "replace_lines", "path": "n.txt",
                                      "start_line": 2, "end_line": 2, "content": "two"}]},
         tmp_path)
    assert f.read_text() == "1\ntwo"
    call(write_file, {"operations": [{"mode": "replace_lines", "path": "n.txt",
                                      "start_line": 3, "end_line": 2, "content": "3"}]},
         tmp_path)
    assert f.read_text() == "1\ntwo\n3"
    with pytest.raises(RawError, match="out of range"):
        call(write_file, {"operations": [{"mode": "replace_lines", "path": "n.txt",
                                          "start_line": 2, "end_line": 9, "content": ""}]},
             tmp_path)


def test_patch_add_update_move_delete(write_file, tmp_path):
    (tmp_path / "up.py").write_text("def f():\n    pass\n\nx = 1\n")
    (tmp_path / "old.txt").write_text("keep\nchange\n")
    (tmp_path / "gone.txt").write_text("bye\n")
    out = call(write_file, {"patch": patch(
        "*** Add File: dir/new.txt", "+line one", "+line two",
        "*** Update File: up.py", "@@ def f():", "-    pass", "+    return 1",
        "*** Update File: old.txt", "*** Move to: moved/new_name.txt", "@@", " keep",
        "-change", "+changed",
        "*** Delete File: gone.txt")}, tmp_path)
    assert (tmp_path / "dir/new.txt").read_text() == "line one\nline two\n"
    assert (tmp_path / "up.py").read_text() == "def f():\n    return 1\n\nx = 1\n"
    assert (tmp_path / "moved/new_name.txt").read_text() == "keep\nchanged\n"
    assert not (tmp_path / "old.txt").exists()
    assert not (tmp_path / "gone.txt").exists()
    assert f"deleted {tmp_path}/gone.txt" in out and f"deleted {tmp_path}/old.txt" in out


def test_patch_failure_changes_nothing(write_file, tmp_path):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    before = listing(tmp_path)
    with pytest.raises(RawError) as info:
        call(write_file, {"patch": patch(
            "*** Add File: c.txt", "+c",
            "*** Update File: a.txt", "@@", "-a", "+A",
            "*** Delete File: b.txt",
            "*** Update File: missing.txt", "@@", "-x", "+y")}, tmp_path)
    assert info.value.code == PATCH_PREFLIGHT_FAILED and "no such file" in str(info.value)
    assert listing(tmp_path) == before
    assert (tmp_path / "a.txt").read_text() == "a\n"
    with pytest.raises(RawError, match="cannot find"):
        call(write_file, {"patch": patch("*** Update File: a.txt", "@@", "-zzz", "+y")}, tmp_path)
    assert listing(tmp_path) == before


def test_expected_sha256_mismatch_writes_nothing(write_file, tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\n")
    (tmp_path / "b.txt").write_bytes(b"two\n")
    with pytest.raises(RawError, match="expected_sha256 does not match"):
        call(write_file, {"operations": [
            {"mode": "overwrite", "path": "a.txt", "content": "ONE"},
            {"mode": "append", "path": "b.txt", "content": "x", "expected_sha256": sha(b"nope")},
        ]}, tmp_path)
    assert (tmp_path / "a.txt").read_bytes() == b"one\n"
    assert listing(tmp_path) == ["a.txt", "b.txt"]
    call(write_file, {"operations": [
        {"mode": "append", "path": "b.txt", "content": "x",
         "expected_sha256": sha(b"two\n").upper()}]}, tmp_path)
    assert (tmp_path / "b.txt").read_bytes() == b"two\nx"
    with pytest.raises(RawError, match="does not exist"):
        call(write_file, {"operations": [{"mode": "overwrite", "path": "nope", "content": "",
                                          "expected_sha256": sha(b"")}]}, tmp_path)


def test_expected_sha256_sees_earlier_operations_of_the_call(write_file, tmp_path):
    call(write_file, {"operations": [
        {"mode": "overwrite", "path": "a.txt", "content": "v1"},
        {"mode": "append", "path": "a.txt", "content": "+", "expected_sha256": sha(b"v1")},
    ]}, tmp_path)
    assert (tmp_path / "a.txt").read_text() == "v1+"


def test_failed_rename_leaves_the_old_file_whole_and_no_temp(write_file, tmp_path, monkeypatch):
    target = tmp_path / "a.txt"
    target.write_text("old content\n")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        call(write_file, {"operations": [
            {"mode": "overwrite", "path": "a.txt", "content": "new content\n"}]}, tmp_path)
    assert target.read_text() == "old content\n"
    assert listing(tmp_path) == ["a.txt"]


def test_failed_staging_of_a_later_file_writes_no_file(write_file, tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    real_fsync = os.fsync
    calls = []

    def fsync_failing_on_second(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(5, "Input/output error")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync_failing_on_second)
    with pytest.raises(OSError):
        call(write_file, {"operations": [
            {"mode": "overwrite", "path": "a.txt", "content": "A"},
            {"mode": "overwrite", "path": "b.txt", "content": "B"}]}, tmp_path)
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert (tmp_path / "b.txt").read_text() == "b\n"
    assert listing(tmp_path) == ["a.txt", "b.txt"]


def test_modes_kept_for_existing_files_and_umask_for_new(write_file, tmp_path):
    f = tmp_path / "script.sh"
    f.write_text("echo hi\n")
    f.chmod(0o751)
    call(write_file, {"operations": [
        {"mode": "overwrite", "path": "script.sh", "content": "echo bye\n"},
        {"mode": "overwrite", "path": "fresh.txt", "content": ""}]}, tmp_path)
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    umask = fsatomic.current_umask()
    assert stat.S_IMODE((tmp_path / "fresh.txt").stat().st_mode) == 0o666 & ~umask


def test_writing_to_a_symlink_is_refused(write_file, tmp_path):
    """The file a link points to is not the path the policy saw (effects are lexical)."""
    real = tmp_path / "real.txt"
    real.write_text("r\n")
    (tmp_path / "link.txt").symlink_to(real)
    with pytest.raises(RawError, match="^patch_symlink_path: .*link.txt is a symbolic link"):
        call(write_file, {"operations": [
            {"mode": "append", "path": "link.txt", "content": "more\n"}]}, tmp_path)
    assert (tmp_path / "link.txt").is_symlink()
    assert real.read_text() == "r\n"


def test_directories_and_non_utf8_files_are_errors(write_file, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RawError, match="is a directory"):
        call(write_file, {"operations": [{"mode": "overwrite", "path": "d", "content": ""}]},
             tmp_path)
    with pytest.raises(RawError, match="not UTF-8"):
        call(write_file, {"operations": [{"mode": "replace_text", "path": "bin",
                                          "old_text": "a", "new_text": "b"}]}, tmp_path)
    with pytest.raises(RawError, match="does not exist"):
        call(write_file, {"operations": [{"mode": "replace_text", "path": "nope",
                                          "old_text": "a", "new_text": "b"}]}, tmp_path)

"""write_file held against Raw's own cases (lploc94/raw-cli `tests/write-patch.test.ts` and
`tests/batch-write.test.ts`), each ported to our handler and preview; where raw-tui keeps a
deliberate difference (docs/decisions.md) the test says so and checks ours."""

from __future__ import annotations

import hashlib
import os
import stat

import pytest
from builtin_kit import call, listing, make_ctx, write_file  # noqa: F401 (fixtures)

from raw_tui.protocol.errors import PATCH_PREFLIGHT_FAILED, TOOL_ERROR, RawError
from raw_tui.frozen import freeze
from raw_tui.tools import approval_preview, fsatomic


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def preview_note(spec, args, cwd) -> str:
    """The approval preview's note for a call whose plan fails (the same note on every file)."""
    frozen, ctx = freeze(args), make_ctx(cwd)
    effects = freeze(spec.module().describe_effects(frozen, ctx))
    shown = approval_preview.compute(spec.module().preview, frozen,
                                     make_ctx(cwd, effects=effects), effects)
    notes = {f.note for f in shown.files}
    assert len(notes) == 1, notes
    return notes.pop()


# ---------------------------------------------------------------------------- symbolic links

@pytest.fixture
def linked(tmp_path):
    """cwd/linked -> outside/ (a directory outside the working directory), with a file in it."""
    cwd, outside = tmp_path / "cwd", tmp_path / "outside"
    cwd.mkdir()
    outside.mkdir()
    (outside / "file").write_text("outside\n")
    (cwd / "linked").symlink_to(outside)
    (cwd / "here.txt").write_text("here\n")
    return cwd, outside


LINKED_CALLS = {
    "overwrite": {"operations": [{"mode": "overwrite", "path": "linked/new", "content": "no"}]},
    "overwrite existing": {"operations": [{"mode": "overwrite", "path": "linked/file",
                                           "content": "no"}]},
    "append": {"operations": [{"mode": "append", "path": "linked/file", "content": "no"}]},
    "replace_text": {"operations": [{"mode": "replace_text", "path": "linked/file",
                                     "old_text": "outside", "new_text": "no"}]},
    "replace_lines": {"operations": [{"mode": "replace_lines", "path": "linked/file",
                                      "start_line": 1, "end_line": 1, "content": "no"}]},
    "second operation": {"operations": [
        {"mode": "overwrite", "path": "here.txt", "content": "changed\n"},
        {"mode": "overwrite", "path": "linked/deeper/new", "content": "no"}]},
    "patch add": {"patch": patch("*** Add File: linked/file2", "+no")},
    "patch update": {"patch": patch("*** Update File: linked/file", "@@", "-outside", "+no")},
    "patch delete": {"patch": patch("*** Delete File: linked/file")},
    "patch move from": {"patch": patch("*** Update File: linked/file", "*** Move to: moved",
                                       "@@", "-outside", "+no")},
    "patch move to": {"patch": patch("*** Update File: here.txt", "*** Move to: linked/moved",
                                     "@@", "-here", "+no")},
    "patch add after a good one": {"patch": patch("*** Add File: fine.txt", "+fine",
                                                  "*** Add File: linked/file2", "+no")},
}


@pytest.mark.parametrize("name", list(LINKED_CALLS))
def test_no_form_writes_through_a_symlinked_directory(write_file, linked, name):
    """Raw `write-patch.test.ts`, "rejects invalid dialect duplicate paths binary bytes and
    symlink parents": `*** Add File: linked/file` where `linked` points outside the working
    directory is an error and `outside/file` is never created. Raw answers
    `patch_preflight_failed` / `patch_symlink_path`; raw-tui does the same for the patch form
    and refuses every operation of the operations form too (`tool_error`, same text). The
    preview is that same refusal, and nothing at all is written."""
    cwd, outside = linked
    args = LINKED_CALLS[name]
    before = {p: p.read_bytes() for p in (outside / "file", cwd / "here.txt")}
    with pytest.raises(RawError) as info:
        call(write_file, args, cwd)
    code = PATCH_PREFLIGHT_FAILED if "patch" in args else TOOL_ERROR
    assert info.value.code == code
    assert info.value.message == (f"patch_symlink_path: {cwd}/linked is a symbolic link (to "
                                  f"{outside}); write_file does not write through links: "
                                  "name the path it points to")
    assert preview_note(write_file, args, cwd) == f"no preview: {info.value.message}"
    assert sorted(os.listdir(outside)) == ["file"]
    assert listing(cwd) == ["here.txt", "linked"]
    assert {p: p.read_bytes() for p in before} == before


def test_a_symlinked_file_and_a_link_inside_the_workspace_are_refused_too(write_file, tmp_path):
    """Raw refuses every symbolic link on the way, not only ones pointing outside (the
    effects name the link, never its target): a link to a file, a link to a directory of
    the workspace. Deleting a link is refused as in Raw (`snapshot`: patch_symlink_path)."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real/a.txt").write_text("a\n")
    (tmp_path / "alias").symlink_to("real")
    (tmp_path / "a-link.txt").symlink_to("real/a.txt")
    for args in ({"operations": [{"mode": "overwrite", "path": "alias/a.txt", "content": "x"}]},
                 {"operations": [{"mode": "append", "path": "a-link.txt", "content": "x"}]},
                 {"patch": patch("*** Delete File: a-link.txt")}):
        with pytest.raises(RawError, match="^patch_symlink_path: "):
            call(write_file, args, tmp_path)
    assert (tmp_path / "real/a.txt").read_text() == "a\n"
    assert (tmp_path / "a-link.txt").is_symlink()


def test_a_working_directory_reached_through_a_link_still_works(write_file, tmp_path):
    """The user chose the working directory: a cwd given through a link is not refused,
    only what the tool's path adds below it."""
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to("real")
    call(write_file, {"patch": patch("*** Add File: sub/new.txt", "+ok")}, tmp_path / "via")
    assert (tmp_path / "real/sub/new.txt").read_text() == "ok\n"


def test_a_link_that_appears_after_the_plan_is_refused_at_the_write(write_file, linked,
                                                                     monkeypatch):
    """Checked again just before the temp file is made: a directory swapped for a link
    between the plan and the write lands nothing outside (no temp file either)."""
    cwd, outside = linked
    module = write_file.module()
    real_makedirs = os.makedirs

    def makedirs_then_swap(path, exist_ok=False):
        real_makedirs(path, exist_ok=exist_ok)
        if path == str(cwd / "d"):
            os.rmdir(cwd / "d")
            os.symlink(outside, cwd / "d")

    monkeypatch.setattr(module.os, "makedirs", makedirs_then_swap)
    with pytest.raises(RawError, match=f"^patch_symlink_path: {cwd}/d is a symbolic link"):
        call(write_file, {"operations": [{"mode": "overwrite", "path": "d/x", "content": "no"}]},
             cwd)
    assert sorted(os.listdir(outside)) == ["file"]


# ---------------------------------------------------------------------------- ambiguity

def test_repeated_context_changes_nothing(write_file, tmp_path):
    """Raw `write-patch.test.ts`, "later context conflict and repeated context cause zero
    mutations": `b` holds `same` twice; a hunk `-same` is rejected (not applied to the first)
    and the earlier file of the patch stays as it was."""
    (tmp_path / "a").write_text("a\n")
    (tmp_path / "b").write_text("same\nsame\n")
    for needle, reason in (("missing", "patch_context_not_found"),
                           ("same", "patch_ambiguous_context")):
        args = {"patch": patch("*** Update File: a", "@@", "-a", "+changed",
                               "*** Update File: b", "@@", f"-{needle}", "+changed")}
        with pytest.raises(RawError) as info:
            call(write_file, args, tmp_path)
        assert info.value.code == PATCH_PREFLIGHT_FAILED
        assert info.value.message.startswith(f"{reason}: {tmp_path}/b: hunk 1: ")
        assert preview_note(write_file, args, tmp_path) == f"no preview: {info.value.message}"
        assert (tmp_path / "a").read_text() == "a\n"
        assert (tmp_path / "b").read_text() == "same\nsame\n"


def test_eof_anchors_disambiguate_and_unordered_hunks_fail(write_file, tmp_path):
    """Raw `write-patch.test.ts`, "EOF anchors disambiguate repeated lines; unordered hunks
    fail"."""
    f = tmp_path / "a"
    f.write_text("same\nother\nsame\n")
    call(write_file, {"patch": patch("*** Update File: a", "@@", "-same", "+last",
                                     "*** End of File")}, tmp_path)
    assert f.read_text() == "same\nother\nlast\n"
    with pytest.raises(RawError):
        call(write_file, {"patch": patch("*** Update File: a", "@@", "-last", "+LAST", "@@",
                                         "-same", "+FIRST")}, tmp_path)
    assert f.read_text() == "same\nother\nlast\n"


def test_an_anchor_line_narrows_the_search_and_must_itself_name_one_place(write_file, tmp_path):
    """`@@ def g():` picks the lines after it, up to the next `def g():`: a body line that
    also occurs under `def f():` is not ambiguous; two `def g():` holding it are."""
    f = tmp_path / "m.py"
    f.write_text("def f():\n    return 1\n\ndef g():\n    return 1\n")
    call(write_file, {"patch": patch("*** Update File: m.py", "@@ def g():",
                                     "-    return 1", "+    return 2")}, tmp_path)
    assert f.read_text() == "def f():\n    return 1\n\ndef g():\n    return 2\n"
    f.write_text("def g():\n    return 1\n\ndef g():\n    return 1\n")
    with pytest.raises(RawError, match="^patch_ambiguous_context: "):
        call(write_file, {"patch": patch("*** Update File: m.py", "@@ def g():",
                                         "-    return 1", "+    return 2")}, tmp_path)


# ---------------------------------------------------------------------------- BOM, endings, mode

def test_bom_mixed_separators_permissions_and_final_newline_are_kept(write_file, tmp_path):
    """Raw `write-patch.test.ts`, "preserves BOM mixed separators permissions and final
    newline state"."""
    f = tmp_path / "a"
    f.write_bytes("\ufeffone\r\ntwo\r\nlast".encode())
    f.chmod(0o751)
    call(write_file, {"patch": patch("*** Update File: a", "@@", " one", "-two", "+new",
                                     "+extra", " last", "*** End of File")}, tmp_path)
    assert f.read_bytes() == "\ufeffone\r\nnew\r\nextra\r\nlast".encode()
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    call(write_file, {"patch": patch("*** Add File: no-eol", "+x",
                                     "*** No newline at end of file", "*** Add File: empty")},
         tmp_path)
    assert (tmp_path / "no-eol").read_bytes() == b"x"
    assert (tmp_path / "empty").read_bytes() == b""


@pytest.mark.parametrize("hunk, expected", [
    (["@@", "-one", "+ONE"], "\ufeffONE\r\ntwo\r\nthree\r\n"),
    (["@@", "-one"], "\ufefftwo\r\nthree\r\n"),
    (["@@", "-one", "-two", "+a", "+b", "+c"], "\ufeffa\r\nb\r\nc\r\nthree\r\n"),
    (["@@", " one", "+inserted"], "\ufeffone\r\ninserted\r\ntwo\r\nthree\r\n"),
])
def test_a_first_hunk_on_line_one_of_a_bom_crlf_file(write_file, tmp_path, hunk, expected):
    """The issue's case: a BOM + CRLF file whose first hunk touches line 1 could not be
    patched (`cannot find its lines`), and deleting line 1 lost the BOM."""
    f = tmp_path / "w.txt"
    f.write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    call(write_file, {"patch": patch("*** Update File: w.txt", *hunk)}, tmp_path)
    assert f.read_bytes() == expected.encode()


def test_each_line_keeps_its_own_ending(write_file, tmp_path):
    """A file with both endings: untouched lines keep theirs, added ones take the ending of
    the line where they go (Raw's `applyHunks`); before, every line became CRLF."""
    f = tmp_path / "mixed"
    f.write_bytes(b"a\nb\r\nc\n")
    call(write_file, {"patch": patch("*** Update File: mixed", "@@", " b", "-c", "+C", "+D")},
         tmp_path)
    assert f.read_bytes() == b"a\nb\r\nC\nD\n"


def test_a_moved_file_keeps_its_mode(write_file, tmp_path):
    """Raw publishes a moved file with its source's mode (chmod source.mode)."""
    src = tmp_path / "run.sh"
    src.write_text("echo a\n")
    src.chmod(0o750)
    call(write_file, {"patch": patch("*** Update File: run.sh", "*** Move to: bin/run.sh",
                                     "@@", "-echo a", "+echo b")}, tmp_path)
    assert stat.S_IMODE((tmp_path / "bin/run.sh").stat().st_mode) == 0o750


def test_replace_lines_deleting_the_bom_line_keeps_the_bom(write_file, tmp_path):
    """Raw `batch-write.test.ts`, "deleting the BOM-bearing first line retains the BOM
    without an empty line" (its guard: the SHA-256 of the replaced line, BOM included)."""
    f = tmp_path / "target"
    f.write_bytes("\ufefffirst\r\nsecond\r\n".encode())
    call(write_file, {"operations": [{"mode": "replace_lines", "path": "target",
                                      "start_line": 1, "end_line": 1, "content": "",
                                      "expected_sha256": sha("\ufefffirst\r\n".encode())}]},
         tmp_path)
    assert f.read_bytes() == "\ufeffsecond\r\n".encode()


def test_replace_lines_guard_is_the_replaced_lines_and_keeps_crlf(write_file, tmp_path):
    """Raw `batch-write.test.ts`, "replace guards preserve bytes and later runtime items
    continue" (its successful item; raw-tui's call is all-or-nothing, so the failing items
    are checked alone): `expected_sha256` is the hash of `two\\r\\n`, the line replaced."""
    f = tmp_path / "crlf.txt"
    f.write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    with pytest.raises(RawError, match="expected_sha256 does not match lines 2-2"):
        call(write_file, {"operations": [{"mode": "replace_lines", "path": "crlf.txt",
                                          "start_line": 2, "end_line": 2, "content": "bad",
                                          "expected_sha256": "0" * 64}]}, tmp_path)
    call(write_file, {"operations": [{"mode": "replace_lines", "path": "crlf.txt",
                                      "start_line": 2, "end_line": 2, "content": "new",
                                      "expected_sha256": sha(b"two\r\n")}]}, tmp_path)
    assert f.read_bytes() == "\ufeffone\r\nnew\r\nthree\r\n".encode()


def test_replace_lines_line_delete_with_its_guard(write_file, tmp_path):
    """Raw `batch-write.test.ts`, "line delete, out-of-range and exact-text no-match report
    per-item outcomes" (the delete; out of range is refused)."""
    f = tmp_path / "target"
    f.write_text("a\nb\nc\n")
    with pytest.raises(RawError, match="out of range"):
        call(write_file, {"operations": [{"mode": "replace_lines", "path": "target",
                                          "start_line": 4, "end_line": 4, "content": "oops",
                                          "expected_sha256": "0" * 64}]}, tmp_path)
    call(write_file, {"operations": [{"mode": "replace_lines", "path": "target",
                                      "start_line": 2, "end_line": 2, "content": "",
                                      "expected_sha256": sha(b"b\n")}]}, tmp_path)
    assert f.read_text() == "a\nc\n"


def test_four_modes_in_order_with_the_line_guard(write_file, tmp_path):
    """Raw `batch-write.test.ts`, "write batch applies four modes in order, including empty
    edits". One deliberate difference (docs/decisions.md): Raw leaves
    `alpha\\ndelta` (the line's newline replaced too); raw-tui keeps the file's final
    newline: `alpha\\ndelta\\n`."""
    call(write_file, {"operations": [
        {"mode": "overwrite", "path": "nested/a.txt", "content": "alpha\n"},
        {"mode": "append", "path": "nested/a.txt", "content": "beta\n"},
        {"mode": "replace_text", "path": "nested/a.txt", "old_text": "beta",
         "new_text": "gamma"},
        {"mode": "replace_lines", "path": "nested/a.txt", "start_line": 2, "end_line": 2,
         "content": "delta", "expected_sha256": sha(b"gamma\n")},
        {"mode": "overwrite", "path": "empty.txt", "content": ""},
    ]}, tmp_path)
    assert (tmp_path / "nested/a.txt").read_text() == "alpha\ndelta\n"
    assert (tmp_path / "empty.txt").read_text() == ""


# ---------------------------------------------------------------------------- newline marker

def test_no_newline_marker_in_update_and_empty_sources(write_file, tmp_path):
    """Raw `write-patch.test.ts`, "absent newline update marker, empty sources, path count
    and source size limits" (the first two). One deliberate difference
    (docs/decisions.md): an empty file given `+one` becomes `one\\n` here, Raw
    `one`; with the marker it is `one` here too."""
    (tmp_path / "a").write_text("a\n")
    call(write_file, {"patch": patch("*** Update File: a", "@@", "-a", "+b",
                                     "*** No newline at end of file")}, tmp_path)
    assert (tmp_path / "a").read_bytes() == b"b"
    (tmp_path / "empty").write_text("")
    call(write_file, {"patch": patch("*** Update File: empty", "@@", "+one")}, tmp_path)
    assert (tmp_path / "empty").read_bytes() == b"one\n"
    (tmp_path / "empty").write_text("")
    call(write_file, {"patch": patch("*** Update File: empty", "@@", "+one",
                                     "*** No newline at end of file")}, tmp_path)
    assert (tmp_path / "empty").read_bytes() == b"one"


def test_no_newline_marker_after_end_of_file_and_with_crlf(write_file, tmp_path):
    f = tmp_path / "w"
    f.write_bytes(b"x\r\ny\r\n")
    call(write_file, {"patch": patch("*** Update File: w", "@@", " x", "-y", "+z",
                                     "*** End of File", "*** No newline at end of file")},
         tmp_path)
    assert f.read_bytes() == b"x\r\nz"


def test_a_hunk_after_the_no_newline_marker_is_a_syntax_error(write_file, tmp_path):
    from builtin_kit import validation_error

    problem = validation_error(write_file, {"patch": patch(
        "*** Update File: a", "@@", "-a", "+b", "*** No newline at end of file", "@@", "-c")})
    assert problem is not None and "not a file header" in problem


# ---------------------------------------------------------------------------- binary sources

@pytest.mark.parametrize("data, reason", [(b"\xff\x00", "patch_binary_source"),
                                          (b"caf\xe9\n", "patch_invalid_utf8")])
def test_a_patch_never_deletes_or_updates_binary_bytes(write_file, tmp_path, data, reason):
    """Raw `write-patch.test.ts`, "rejects invalid dialect duplicate paths binary bytes and
    symlink parents": `*** Delete File: binary` of `ff 00` is an error (Raw reads every
    source it updates or deletes and refuses NUL bytes and invalid UTF-8)."""
    f = tmp_path / "binary"
    f.write_bytes(data)
    for args in ({"patch": patch("*** Delete File: binary")},
                 {"patch": patch("*** Update File: binary", "@@", "+x")}):
        with pytest.raises(RawError) as info:
            call(write_file, args, tmp_path)
        assert info.value.code == PATCH_PREFLIGHT_FAILED
        assert info.value.message.startswith(f"{reason}: ")
        assert preview_note(write_file, args, tmp_path) == f"no preview: {info.value.message}"
    assert f.read_bytes() == data


# ---------------------------------------------------------------------------- new files only

DESTINATION_CALLS = {
    "add onto a file": (patch("*** Add File: fine.txt", "+fine", "*** Add File: taken.txt",
                              "+new"),
                        "cannot add {cwd}/taken.txt: it exists; Add File makes a new file "
                        "(update it, or delete it first)"),
    "add onto a directory": (patch("*** Add File: fine.txt", "+fine", "*** Add File: dir",
                                   "+new"),
                             "cannot add {cwd}/dir: it exists; Add File makes a new file "
                             "(update it, or delete it first)"),
    "move onto a file": (patch("*** Add File: fine.txt", "+fine", "*** Update File: source.txt",
                               "*** Move to: taken.txt", "@@", "-source", "+moved"),
                         "cannot move {cwd}/source.txt to {cwd}/taken.txt: it exists; Move to "
                         "names a new file"),
    "move onto a file, hunk not found": (
        patch("*** Update File: source.txt", "*** Move to: taken.txt", "@@", "-absent", "+x"),
        "cannot move {cwd}/source.txt to {cwd}/taken.txt: it exists; Move to names a new file"),
}


@pytest.mark.parametrize("name", list(DESTINATION_CALLS))
def test_add_file_and_move_to_never_replace_what_exists(write_file, tmp_path, name):
    """Raw `src/tools/file-patch.ts`, `stageFilePatch`: an Add File target and a Move to
    destination must be `absent` (lstat finds nothing there), else the patch fails
    `patch_preflight_failed` / `patch_destination_exists` before anything is written; the
    destination is checked before the source's hunks are matched. (Raw's
    `tests/write-patch.test.ts` has no case for it; this ports the source's rule.) The
    preview is that same refusal, and no file of the patch is written."""
    (tmp_path / "taken.txt").write_text("keep me\n")
    (tmp_path / "source.txt").write_text("source\n")
    (tmp_path / "dir").mkdir()
    args = {"patch": DESTINATION_CALLS[name][0]}
    with pytest.raises(RawError) as info:
        call(write_file, args, tmp_path)
    assert info.value.code == PATCH_PREFLIGHT_FAILED
    assert info.value.message == ("patch_destination_exists: "
                                  + DESTINATION_CALLS[name][1].format(cwd=tmp_path))
    assert preview_note(write_file, args, tmp_path) == f"no preview: {info.value.message}"
    assert listing(tmp_path) == ["dir", "source.txt", "taken.txt"]
    assert (tmp_path / "taken.txt").read_text() == "keep me\n"
    assert (tmp_path / "source.txt").read_text() == "source\n"
    assert listing(tmp_path / "dir") == []


def test_add_file_and_move_to_a_new_path_still_work(write_file, tmp_path):
    """Raw `tests/write-patch.test.ts`, "patch add update rename delete reports actual bytes
    and complete effects": new paths are written, the moved source is gone."""
    (tmp_path / "old").write_text("before\n")
    call(write_file, {"patch": patch("*** Add File: nested/new", "+héllo",
                                     "*** Update File: old", "*** Move to: moved", "@@",
                                     "-before", "+after")}, tmp_path)
    assert (tmp_path / "nested/new").read_text() == "héllo\n"
    assert (tmp_path / "moved").read_text() == "after\n"
    assert listing(tmp_path) == ["moved", "nested"]


def test_a_file_that_appears_after_the_plan_is_not_replaced(write_file, tmp_path, monkeypatch):
    """Raw rechecks `absent` just before it publishes (and publishes with a no-clobber
    link); here the check is made again before the renames: a file created at an Add File
    target between the plan and the write stays, and nothing of the patch is written."""
    real_stage = fsatomic.stage_write

    def stage_then_create(path, data, mode=None):
        staged = real_stage(path, data, mode)
        if path == str(tmp_path / "late.txt"):
            (tmp_path / "late.txt").write_text("someone else's\n")
        return staged

    monkeypatch.setattr(fsatomic, "stage_write", stage_then_create)
    with pytest.raises(RawError) as info:
        call(write_file, {"patch": patch("*** Add File: first.txt", "+one",
                                         "*** Add File: late.txt", "+mine")}, tmp_path)
    assert info.value.code == PATCH_PREFLIGHT_FAILED
    assert info.value.message.startswith(f"patch_destination_exists: cannot write {tmp_path}/"
                                         "late.txt: it appeared since the patch was planned")
    assert listing(tmp_path) == ["late.txt"]
    assert (tmp_path / "late.txt").read_text() == "someone else's\n"

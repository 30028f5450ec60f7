"""The patch grammar (raw_tui.tools.patch, raw_tui.tools.patch_apply): parsing, errors with
line numbers, applying hunks."""

from __future__ import annotations

import pytest

from raw_tui.protocol.errors import (INVALID_ARGUMENTS, PATCH_PREFLIGHT_FAILED,
                                     PATCH_REPEATED_TARGET, RawError)
from raw_tui.tools.patch import (AddFile, DeleteFile, PatchSyntaxError, UpdateFile,
                                 check_repeated, lexical_abspath, parse_patch, targets)
from raw_tui.tools.patch_apply import PatchApplyError, apply_hunks


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


def test_every_file_form_parses_in_order():
    ops = parse_patch(patch(
        "*** Add File: new.txt", "+one", "+", "+three",
        "*** Update File: src/a.py", "@@ def f():", "-    pass", "+    return 1",
        "*** Update File: old.py", "*** Move to: new.py", "@@", " keep", "-x", "+y",
        "*** Delete File: gone.txt",
    ))
    assert [type(op) for op in ops] == [AddFile, UpdateFile, UpdateFile, DeleteFile]
    assert ops[0].path == "new.txt" and ops[0].content == "one\n\nthree\n"
    assert ops[1].move_to is None and ops[1].chunks[0].context == "def f():"
    assert ops[1].chunks[0].old_lines == ["    pass"]
    assert ops[1].chunks[0].new_lines == ["    return 1"]
    assert ops[2].move_to == "new.py"
    assert ops[2].chunks[0].old_lines == ["keep", "x"]
    assert ops[2].chunks[0].new_lines == ["keep", "y"]
    assert ops[3].path == "gone.txt"
    assert targets(ops) == [("new.txt", "write"), ("src/a.py", "write"),
                            ("old.py", "rename_source"), ("new.py", "rename_destination"),
                            ("gone.txt", "delete")]


def test_first_hunk_may_omit_its_header_and_end_of_file_marks_the_end():
    ops = parse_patch(patch("*** Update File: f", " a", "+b", "@@", "-z", "*** End of File"))
    first, second = ops[0].chunks
    assert first.context is None and first.old_lines == ["a"]
    assert second.end_of_file is True


def test_lenient_markers_crlf_and_heredoc_wrapper():
    text = "<<'EOF'\r\n  *** Begin Patch \r\n*** Add File: a\r\n+x\r\n*** End Patch  \r\nEOF\r\n"
    ops = parse_patch(text)
    assert ops == [AddFile("a", "x\n", 3)]


@pytest.mark.parametrize("text, line, words", [
    ("", 1, "empty"),
    ("hello\n*** End Patch", 1, "Begin Patch"),
    ("*** Begin Patch\n*** Add File: a\n+x", 3, "End Patch"),
    ("*** Begin Patch\n*** End Patch", 2, "names no file"),
    ("*** Begin Patch\n*** Add File: a\n+x\nbogus\n*** End Patch", 4, "not a file header"),
    ("*** Begin Patch\n*** Update File: a\n*** End Patch", 2, "has no hunk"),
    ("*** Begin Patch\n*** Update File: a\n@@\n x\n*** Frob\n*** End Patch", 5,
     "not a file header"),
    ("*** Begin Patch\n*** Update File: a\nzzz\n*** End Patch", 3, "every line starts"),
    ("*** Begin Patch\n*** Update File: a\n@@\n-x\n@@\n*** End Patch", 6, "no lines"),
    ("*** Begin Patch\n\n*** Delete File:   \n*** End Patch", 3, "needs a path"),
    ("*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n-x\n*** End Patch", 3,
     "needs a path"),
])
def test_malformed_patches_name_the_line(text, line, words):
    with pytest.raises(PatchSyntaxError) as info:
        parse_patch(text)
    assert info.value.line == line
    assert info.value.code == INVALID_ARGUMENTS
    assert str(info.value).startswith(f"line {line}: ")
    assert words in str(info.value)


def test_a_second_hunk_needs_its_header():
    with pytest.raises(PatchSyntaxError) as info:
        parse_patch(patch("*** Update File: a", "@@", "-x", "+y", "", "nonsense"))
    # `nonsense` ends the first hunk, then cannot start a second one.
    assert info.value.line == 7


def test_check_repeated_and_lexical_paths():
    check_repeated(["a", "b"])
    with pytest.raises(RawError) as info:
        check_repeated(["a", "b", "a"])
    assert info.value.code == PATCH_REPEATED_TARGET
    assert lexical_abspath("x/../y/./z", "/w/d") == "/w/d/y/z"
    assert lexical_abspath("/abs/../b", "/w") == "/b"
    assert lexical_abspath("//etc//passwd", "/w") == "/etc/passwd"


def chunks_of(*lines: str):
    return parse_patch(patch("*** Update File: f", *lines))[0].chunks


def test_apply_replaces_in_order_and_keeps_line_endings():
    text = "a\nb\nc\nb\nd\n"
    chunks = chunks_of("@@ c", "-b", "+B")
    assert apply_hunks(text, chunks, "f") == "a\nb\nc\nB\nd\n"
    assert apply_hunks("a\r\nb\r\n", chunks_of("-b", "+x", "+y"), "f") == "a\r\nx\r\ny\r\n"
    assert apply_hunks("a\nb", chunks_of("-b", "+c"), "f") == "a\nc"


def test_apply_matches_ignoring_whitespace_and_at_end_of_file():
    assert apply_hunks("  x  \ny\n", chunks_of("-x", "+z"), "f") == "z\ny\n"
    text = "k\nv\nk\nv\n"
    assert apply_hunks(text, chunks_of(" k", "-v", "+w", "*** End of File"), "f") == \
        "k\nv\nk\nw\n"


def test_pure_additions_go_after_their_context_line_or_at_the_end():
    assert apply_hunks("a\nb\n", chunks_of("@@ a", "+new"), "f") == "a\nnew\nb\n"
    assert apply_hunks("a\nb\n", chunks_of("+new"), "f") == "a\nb\nnew\n"


def test_a_hunk_that_does_not_match_is_an_error():
    with pytest.raises(PatchApplyError) as info:
        apply_hunks("a\n", chunks_of("-zzz", "+y"), "/w/f")
    assert info.value.code == PATCH_PREFLIGHT_FAILED and "/w/f: hunk 1" in str(info.value)
    assert str(info.value).startswith("patch_context_not_found: ")
    with pytest.raises(PatchApplyError):
        apply_hunks("a\n", chunks_of("@@ missing", "-a", "+b"), "f")

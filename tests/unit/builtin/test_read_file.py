"""read_file on real files: numbering, offset/limit, caps, errors."""

from __future__ import annotations

import pytest
from builtin_tools import call, read_file, validation_error  # noqa: F401 (fixtures)


def test_numbered_lines_relative_and_absolute(read_file, tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\r\nthree")
    assert call(read_file, {"path": "a.txt"}, tmp_path) == "1\tone\n2\ttwo\n3\tthree"
    assert call(read_file, {"path": str(tmp_path / "a.txt")}, "/") == "1\tone\n2\ttwo\n3\tthree"


def test_offset_and_limit_with_a_continuation_note(read_file, tmp_path):
    (tmp_path / "a.txt").write_text("".join(f"L{i}\n" for i in range(1, 11)))
    out = call(read_file, {"path": "a.txt", "offset": 3, "limit": 2}, tmp_path)
    assert out == "3\tL3\n4\tL4\n[lines 3-4 of 10; continue with offset=5]"
    assert call(read_file, {"path": "a.txt", "offset": 10}, tmp_path) == "10\tL10"
    with pytest.raises(ValueError, match="past the end: the file has 10 lines"):
        call(read_file, {"path": "a.txt", "offset": 11}, tmp_path)


def test_output_stays_within_the_budget(read_file, tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"{'x' * 99}\n" for _ in range(1000)))
    out = call(read_file, {"path": "big.txt"}, tmp_path)
    assert len(out.encode()) <= 8192
    last = out.splitlines()[-1]
    assert last.startswith("[lines 1-") and "of 1000; continue with offset=" in last


def test_long_lines_are_cut_and_say_so(read_file, tmp_path):
    (tmp_path / "min.js").write_text("y" * 5000 + "\nshort\n")
    out = call(read_file, {"path": "min.js"}, tmp_path)
    first, second = out.split("\n")
    assert first.endswith("… [line cut: 5000 chars]") and len(first) < 2100
    assert second == "2\tshort"


def test_empty_file(read_file, tmp_path):
    (tmp_path / "e").write_text("")
    assert call(read_file, {"path": "e"}, tmp_path) == "(empty file)"


@pytest.mark.parametrize("setup, exc, words", [
    (lambda p: None, FileNotFoundError, "no such file"),
    (lambda p: p.mkdir(), IsADirectoryError, "is a directory"),
    (lambda p: p.write_bytes(b"ab\x00cd"), ValueError, "binary"),
    (lambda p: p.write_bytes(b"caf\xe9\n"), ValueError, "not UTF-8"),
])
def test_errors_raise(read_file, tmp_path, setup, exc, words):
    setup(tmp_path / "f")
    with pytest.raises(exc, match=words):
        call(read_file, {"path": "f"}, tmp_path)


@pytest.mark.parametrize("args, words", [
    ({}, "path"),
    ({"path": ""}, "path is empty"),
    ({"path": "a", "offset": 0}, "offset must be 1"),
    ({"path": "a", "limit": -1}, "limit must be 1"),
    ({"path": "a", "extra": 1}, "extra"),
])
def test_invalid_arguments(read_file, args, words):
    message = validation_error(read_file, args)
    assert message is not None and words in message, message

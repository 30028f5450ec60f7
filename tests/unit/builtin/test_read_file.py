"""read_file on real files: numbering, offset/limit, caps, errors."""

from __future__ import annotations

import os
import time
import tracemalloc

import pytest
from builtin_kit import call, read_file, validation_error  # noqa: F401 (fixtures)


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


@pytest.mark.parametrize("make, kind", [
    (lambda p: os.mkfifo(p), "a FIFO"),
    (lambda p: os.symlink("/dev/zero", p), "a character device"),
    (lambda p: os.symlink("/dev/null", p), "a character device"),
])
def test_fifos_and_devices_are_refused_before_reading(read_file, tmp_path, make, kind):
    make(tmp_path / "special")
    started = time.monotonic()
    with pytest.raises(ValueError, match=f"is not a regular file \\({kind}\\)"):
        call(read_file, {"path": "special"}, tmp_path)
    assert time.monotonic() - started < 2  # a FIFO without a writer did not block the open


def test_a_huge_file_is_read_only_as_far_as_the_lines_shown(read_file, tmp_path):
    big = tmp_path / "big.log"
    with open(big, "wb") as f:
        f.write(b"".join(b"line %d\n" % i for i in range(1, 1001)))
        f.truncate(2 * 1024**3)  # 2 GiB: the rest is a hole of NUL bytes
    tracemalloc.start()
    try:
        out = call(read_file, {"path": "big.log", "offset": 5, "limit": 3}, tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out == "5\tline 5\n6\tline 6\n7\tline 7\n[lines 5-7; continue with offset=8]"
    assert peak < 8 * 1024 * 1024


def test_one_endless_line_is_clipped_in_bounded_memory(read_file, tmp_path):
    (tmp_path / "one.txt").write_bytes(b"z" * (6 * 1024 * 1024) + b"\nnext\n")
    tracemalloc.start()
    try:
        out = call(read_file, {"path": "one.txt"}, tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    first, second = out.split("\n")
    assert first.endswith(f"… [line cut: {6 * 1024 * 1024} chars]") and second == "2\tnext"
    assert peak < 2 * 1024 * 1024


def test_a_cut_through_a_multibyte_character_is_not_an_error(read_file, tmp_path):
    (tmp_path / "u.txt").write_text("é" * 5000 + "\n")
    out = call(read_file, {"path": "u.txt"}, tmp_path)
    assert out.endswith("… [line cut: 5000 chars]")

"""write_file: argument validation and intended effects (docs/gate.md, "Built-in tools")."""

from __future__ import annotations

import os

import pytest
from builtin_kit import (effects_of, make_ctx, validation_error,  # noqa: F401 (fixture)
                           write_file)

from raw_tui.protocol.errors import PATCH_REPEATED_TARGET, RawError
from raw_tui.frozen import freeze


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def files(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"path": p, "operation": o} for p, o in pairs]


OPS = [
    {"mode": "overwrite", "path": "a.txt", "content": "x"},
    {"mode": "append", "path": "b.txt", "content": "x"},
    {"mode": "replace_text", "path": "c.txt", "old_text": "x", "new_text": "y"},
    {"mode": "replace_lines", "path": "d.txt", "start_line": 1, "end_line": 2, "content": ""},
]


def test_every_operation_is_a_write_with_an_absolute_path(write_file, tmp_path):
    got = effects_of(write_file, {"operations": OPS}, tmp_path)
    assert got == files(*[(f"{tmp_path}/{n}.txt", "write") for n in "abcd"])


def test_patch_add_update_move_delete(write_file, tmp_path):
    text = patch("*** Add File: new.txt", "+hi",
                 "*** Update File: up.txt", "@@", "-a", "+b",
                 "*** Update File: old.txt", "*** Move to: sub/moved.txt", "@@", "-a", "+b",
                 "*** Delete File: gone.txt")
    assert effects_of(write_file, {"patch": text}, tmp_path) == files(
        (f"{tmp_path}/new.txt", "write"),
        (f"{tmp_path}/up.txt", "write"),
        (f"{tmp_path}/old.txt", "rename_source"),
        (f"{tmp_path}/sub/moved.txt", "rename_destination"),
        (f"{tmp_path}/gone.txt", "delete"),
    )


def test_relative_absolute_and_dotdot_paths_are_normalized(write_file, tmp_path):
    ops = [{"mode": "overwrite", "path": p, "content": ""} for p in
           ("x/../y.txt", "./z.txt", "/etc/../tmp//w.txt", "../up.txt")]
    assert [f["path"] for f in effects_of(write_file, {"operations": ops}, tmp_path)] == [
        f"{tmp_path}/y.txt", f"{tmp_path}/z.txt", "/tmp/w.txt",
        os.path.join(os.path.dirname(tmp_path), "up.txt")]


def test_symlinks_are_not_resolved(write_file, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    got = effects_of(write_file, {"operations": [
        {"mode": "overwrite", "path": "link/f.txt", "content": ""}]}, tmp_path)
    assert got == files((f"{tmp_path}/link/f.txt", "write"))
    got = effects_of(write_file, {"patch": patch("*** Delete File: link/g.txt")}, tmp_path)
    assert got == files((f"{tmp_path}/link/g.txt", "delete"))


def test_describe_effects_never_touches_the_filesystem(write_file, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("filesystem access")

    for name in ("stat", "lstat", "listdir", "scandir", "readlink", "open"):
        monkeypatch.setattr(os, name, boom)
    monkeypatch.setattr("builtins.open", boom)
    args = {"patch": patch("*** Update File: a", "*** Move to: b", "@@", "-x", "+y")}
    value = write_file.module().describe_effects(freeze(args), make_ctx("/nowhere"))
    assert value == {"files": files(("/nowhere/a", "rename_source"),
                                    ("/nowhere/b", "rename_destination"))}


def test_first_seen_order_and_duplicates_merged(write_file, tmp_path):
    ops = [{"mode": "append", "path": p, "content": "x"} for p in
           ("b.txt", "a.txt", "./b.txt", "b.txt", "c/../a.txt", "c.txt")]
    assert effects_of(write_file, {"operations": ops}, tmp_path) == files(
        (f"{tmp_path}/b.txt", "write"), (f"{tmp_path}/a.txt", "write"),
        (f"{tmp_path}/c.txt", "write"))


@pytest.mark.parametrize("body", [
    ("*** Add File: a.txt", "+x", "*** Delete File: a.txt"),
    ("*** Update File: a.txt", "@@", "-x", "+y", "*** Update File: ./a.txt", "@@", "-y", "+z"),
    ("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-x", "+y", "*** Add File: b.txt", "+q"),
    ("*** Update File: a.txt", "*** Move to: a.txt", "@@", "-x", "+y"),
])
def test_repeated_target_is_rejected(write_file, tmp_path, body):
    args = {"patch": patch(*body)}
    assert validation_error(write_file, args).startswith(f"patch: {PATCH_REPEATED_TARGET}: ")
    with pytest.raises(RawError) as info:
        write_file.module().describe_effects(freeze(args), make_ctx(tmp_path))
    assert info.value.code == PATCH_REPEATED_TARGET


def test_repeated_target_seen_only_as_absolute_paths(write_file, tmp_path):
    # validate_args cannot know cwd; describe_effects and the handler can.
    args = {"patch": patch("*** Add File: a.txt", "+x", f"*** Delete File: {tmp_path}/a.txt")}
    assert validation_error(write_file, args) is None
    with pytest.raises(RawError) as info:
        write_file.module().describe_effects(freeze(args), make_ctx(tmp_path))
    assert info.value.code == PATCH_REPEATED_TARGET
    with pytest.raises(RawError) as info:
        write_file.module().handler(freeze(args), make_ctx(tmp_path))
    assert info.value.code == PATCH_REPEATED_TARGET
    assert not (tmp_path / "a.txt").exists()


def test_more_than_128_effects_is_an_error(write_file, tmp_path):
    adds = [line for i in range(129) for line in (f"*** Add File: f{i}", "+x")]
    args = {"patch": patch(*adds)}
    assert "at most 128" in validation_error(write_file, args)
    with pytest.raises(RawError, match="at most 128"):
        write_file.module().describe_effects(freeze(args), make_ctx(tmp_path))
    ok = {"patch": patch(*adds[:-2])}
    assert len(effects_of(write_file, ok, tmp_path)) == 128


def test_malformed_patch_is_invalid_arguments_with_its_line(write_file):
    args = {"patch": "*** Begin Patch\n*** Add File: a\n+x\n*** Explode File: b\n*** End Patch"}
    message = validation_error(write_file, args)
    assert message.startswith("patch: line 4: ")


@pytest.mark.parametrize("args, words", [
    ({}, "exactly one of operations or patch"),
    ({"operations": OPS[:1], "patch": "x"}, "exactly one"),
    ({"operations": []}, "give 1 to 16"),
    ({"operations": OPS * 5}, "give 1 to 16"),
    ({"operations": [{"mode": "overwrite", "path": "a"}]},
     "operations[0]: overwrite needs content"),
    ({"operations": [{"mode": "replace_text", "path": "a", "old_text": "x"}]}, "needs new_text"),
    ({"operations": [{"mode": "append", "path": "a", "content": "", "old_text": "x"}]},
     "append does not take old_text"),
    ({"operations": [{"mode": "overwrite", "path": "a", "content": "", "bogus": 1}]},
     "does not take bogus"),
    ({"operations": [{"mode": "overwrite", "path": "", "content": ""}]}, "path is empty"),
    ({"operations": [{"mode": "overwrite", "path": "a", "content": "",
                      "expected_sha256": "abc"}]}, "64 hex digits"),
    ({"operations": [{"mode": "replace_text", "path": "a", "old_text": "", "new_text": ""}]},
     "old_text is empty"),
    ({"operations": [{"mode": "replace_lines", "path": "a", "start_line": 0, "end_line": 1,
                      "content": ""}]}, "start_line must be 1"),
    ({"operations": [{"mode": "replace_lines", "path": "a", "start_line": 5, "end_line": 3,
                      "content": ""}]}, "end_line must be"),
    ({"operations": [{"mode": "rename", "path": "a"}]}, "mode"),
    ({"operations": [{"mode": "overwrite", "path": "a", "content": 3}]}, "content"),
    ({"patch": 5}, "patch"),
])
def test_invalid_arguments(write_file, args, words):
    message = validation_error(write_file, args)
    assert message is not None and words in message, message


def test_validate_args_tolerates_any_shape(write_file):
    mod = write_file.module()
    for junk in (None, [], "x", {"operations": "x"}, {"operations": [1, None]},
                 {"operations": [{"mode": "replace_lines", "path": 1, "start_line": "a",
                                  "end_line": None, "content": 2}]}):
        mod.validate_args(junk)  # never raises; the schema reports what is wrong

"""write_file's preview is the change its handler makes: for random files (every Unicode line
break, CRLF, no final newline, binary bytes) and random operations and patches, the preview's
`after` is the file on disk after the handler ran, and the preview reports an error exactly
when the handler fails; nothing is ever written through a symbolically linked directory."""

from __future__ import annotations

import hashlib
import os
import tempfile

from builtin_kit import make_ctx, tool_spec, validation_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raw_tui.protocol.errors import RawError
from raw_tui.frozen import freeze
from raw_tui.tools import approval_preview
from raw_tui.tools.patch import split_lines

WRITE_FILE = tool_spec("write_file")
TOOL = WRITE_FILE.module()

# every character str.splitlines breaks at, and the pieces of CRLF
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
          "\u2029"]
PIECES = BREAKS + ["a", "b", "rm -rf x", " ", "\t", "é", ""]

texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
contents = st.one_of(
    texts.map(lambda t: t.encode()),
    texts.map(lambda t: ("\ufeff" + t).encode()),  # a byte order mark
    st.binary(max_size=24),
    st.builds(lambda t, b: t.encode() + b, texts, st.sampled_from([b"\xff", b"\x00\xfe", b"\x80"])),
)
NAMES = ["f.txt", "g.txt", "lnk/h.txt"]  # lnk -> a directory outside the working directory


@st.composite
def operation(draw, files: dict[str, bytes | None]):
    path = draw(st.sampled_from(NAMES))
    mode = draw(st.sampled_from(["overwrite", "append", "replace_text", "replace_lines"]))
    op: dict = {"mode": mode, "path": path}
    current = files.get(path) or b""
    text = current.decode("utf-8", "replace")
    if mode in ("overwrite", "append"):
        op["content"] = draw(texts)
    elif mode == "replace_text":
        old = draw(st.one_of(texts.filter(bool), st.just(text[:3] or "a"),
                             st.just(text[1:5] or "b")))
        op.update(old_text=old or "a", new_text=draw(texts))
    else:
        n = len(split_lines(text))
        start = draw(st.integers(1, n + 2))
        end = draw(st.integers(start - 1, max(start - 1, n + 1)))
        op.update(start_line=start, end_line=end, content=draw(texts))
    if draw(st.booleans()) and draw(st.booleans()):
        right = hashlib.sha256(current).hexdigest()
        choices = [right, "0" * 64]
        if mode == "replace_lines":  # Raw's guard: the replaced lines' bytes
            pieces = current.split(b"\n")
            lines = [p + b"\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
            span = b"".join(lines[op["start_line"] - 1:op["end_line"]])
            choices.append(hashlib.sha256(span).hexdigest())
        op["expected_sha256"] = draw(st.sampled_from(choices))
    return op


@st.composite
def patch(draw, files: dict[str, bytes | None]):
    path = draw(st.sampled_from(NAMES))
    kind = draw(st.sampled_from(["update", "update", "update", "add", "delete", "move"]))
    if kind == "add":
        body = "".join(f"+{line}\n" for line in draw(st.lists(texts, max_size=3)))
        return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch"
    if kind == "delete":
        return f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch"
    lines = (files.get(path) or b"").decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    i = draw(st.integers(0, len(lines)))
    j = draw(st.integers(i, min(len(lines), i + 3)))
    hunk = [" " + line if draw(st.booleans()) else "-" + line for line in lines[i:j]]
    hunk += ["+" + line.replace("\n", "") for line in draw(st.lists(texts, max_size=2))]
    if not hunk:
        hunk = ["+added"]
    move = "*** Move to: moved.txt\n" if kind == "move" else ""
    tail = "\n*** No newline at end of file" if draw(st.booleans()) else ""
    return (f"*** Begin Patch\n*** Update File: {path}\n{move}@@\n" + "\n".join(hunk)
            + tail + "\n*** End Patch")


@st.composite
def calls(draw):
    files = {name: draw(st.one_of(st.none(), contents)) for name in NAMES}
    if draw(st.booleans()):
        args = {"patch": draw(patch(files))}
    else:
        args = {"operations": draw(st.lists(operation(files), min_size=1, max_size=3))}
    return files, args


def read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls())
def test_the_preview_is_what_the_handler_writes(case):
    files, args = case
    if validation_error(WRITE_FILE, args) is not None:
        return  # never reaches the preview
    with tempfile.TemporaryDirectory() as top:
        cwd, outside = os.path.join(top, "cwd"), os.path.join(top, "outside")
        os.mkdir(cwd)
        os.mkdir(outside)
        os.symlink(outside, os.path.join(cwd, "lnk"))
        for name, data in files.items():
            if data is not None:
                with open(os.path.join(cwd, name), "wb") as f:
                    f.write(data)
        frozen, ctx = freeze(args), make_ctx(cwd)
        try:
            effects = freeze(TOOL.describe_effects(frozen, ctx))
        except RawError:
            return  # effects_error: never reaches the preview
        shown = approval_preview.compute(TOOL.preview, frozen, make_ctx(cwd, effects=effects),
                                         effects)
        try:
            TOOL.handler(frozen, make_ctx(cwd, effects=effects))
            failure = None
        except RawError as err:
            failure = err.message
        previews = {f.path: f for f in shown.files}
        # nothing ever lands through the link (write_file refuses it, preview and handler)
        assert read(os.path.join(outside, "h.txt")) == files["lnk/h.txt"]
        assert len(os.listdir(outside)) == (files["lnk/h.txt"] is not None)
        if failure is not None:
            note = approval_preview.one_line(f"no preview: {failure}")  # as notes are shown
            assert {f.note for f in shown.files} == {
                approval_preview.clip(note, approval_preview.MAX_NOTE_CHARS)}
            for name, data in files.items():  # all or nothing
                assert read(os.path.join(cwd, name)) == data
            return
        assert [(f.path, f.operation) for f in shown.files] == \
            [(e["path"], e["operation"]) for e in effects["files"]]
        for path, item in previews.items():
            on_disk = read(path)
            if item.note:
                assert item.note.startswith(f"no preview: {path} is not UTF-8 text")
                continue
            assert item.after == (on_disk or b"").decode("utf-8"), (args, item)
            removed = [line[1:] for line in item.diff.split("\n")[2:]
                       if line.startswith("-")]
            before_lines = [line.rstrip("\n") for line in split_lines(item.before)]
            assert all(line in before_lines for line in removed)

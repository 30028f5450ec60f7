"""Adversarial: what the user approves is what write_file writes, even when the disk changes
while the modal is open or two paths of one call name the same file."""

from __future__ import annotations

import os

from raw_tui.approval import FixedApprover
from tests.engine.test_approval_preview import agent_with, asked, dispatch


class ChangesFileThenAllows(FixedApprover):
    """Approves, but while the user reads the modal something rewrites the file."""

    def __init__(self, path, text):
        super().__init__(True)
        self.path, self.text = path, text

    async def approve(self, request):
        self.path.write_text(self.text)
        return await super().approve(request)


async def test_a_file_changed_while_asking_is_not_edited_blindly(tmp_path):
    """The user approved `-harmless +echo safe`; meanwhile line 3 became `rm -rf important`.
    replace_lines 3..3 must not rewrite a line the user never saw."""
    target = tmp_path / "f.txt"
    target.write_text("one\ntwo\nharmless\nlast\n")
    changed = "one\ntwo\nkeep me\nharmless\nlast\n"
    args = {"operations": [{"mode": "replace_lines", "path": "f.txt", "start_line": 3,
                            "end_line": 3, "content": "echo safe\n"}]}
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args,
                                    approver=ChangesFileThenAllows(target, changed))
    assert "-harmless\n+echo safe" in asked(events).preview.files[0].diff
    assert target.read_text() == changed  # nothing written that was not approved
    assert report.result.isError and "changed" in report.message


async def test_an_unchanged_file_is_written_as_approved(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("a\n")
    args = {"operations": [{"mode": "append", "path": "f.txt", "content": "b\n"}]}
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args)
    assert not report.result.isError, report.message
    assert target.read_text() == asked(events).preview.files[0].after == "a\nb\n"


async def test_two_names_of_one_file_in_one_call_are_refused(tmp_path):
    """link.txt, a hard link of real.txt: the preview showed two files changing; only one
    would stay. (A symbolic link is refused before: patch_symlink_path.)"""
    (tmp_path / "real.txt").write_text("base\n")
    os.link(tmp_path / "real.txt", tmp_path / "link.txt")
    args = {"operations": [{"mode": "append", "path": "link.txt", "content": "one\n"},
                           {"mode": "append", "path": "real.txt", "content": "two\n"}]}
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args)
    assert (tmp_path / "real.txt").read_text() == "base\n"
    assert report.result.isError and "same file" in report.message


async def test_a_move_onto_a_link_to_itself_loses_nothing(tmp_path):
    """Update a.txt, Move to alias.txt (a link to a.txt): planned as a.txt deleted and
    alias.txt written; committed, it wrote a.txt through the link then deleted it."""
    (tmp_path / "a.txt").write_text("keep\n")
    os.symlink("a.txt", tmp_path / "alias.txt")
    patch = ("*** Begin Patch\n*** Update File: a.txt\n*** Move to: alias.txt\n@@\n-keep\n"
             "+kept\n*** End Patch")
    report, _ = await dispatch(agent_with(tmp_path), tmp_path, "write_file", {"patch": patch})
    assert (tmp_path / "a.txt").read_text() == "keep\n"
    assert report.result.isError and "patch_symlink_path" in report.message


async def test_a_large_unchanged_file_is_written_as_approved(tmp_path):
    """Texts too long to carry and a clipped diff: the check still recognises the file."""
    target = tmp_path / "big.txt"
    target.write_text("".join(f"line {i}\n" for i in range(30000)))
    args = {"operations": [{"mode": "replace_text", "path": "big.txt",
                            "old_text": "line 7\n", "new_text": "seven\n"}]}
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args)
    assert not report.result.isError, report.message
    assert asked(events).preview.files[0].after is None
    assert target.read_text().startswith("line 0\nline 1\nline 2\nline 3\nline 4\nline 5\n"
                                         "line 6\nseven\nline 8\n")


async def test_a_preview_with_huge_paths_stays_under_the_event_bound(tmp_path):
    """A tool's preview names 100 files with 100,000-character paths and operations: one
    `approval_request` must still carry at most the preview's bound, not 20 MB."""
    import msgspec

    from raw_tui.config import load_config
    from raw_tui.tools import approval_preview
    from tests.engine.test_approval_preview import ASK_ALL, preview_tool
    from tests.config_kit import write_config

    cfg = tmp_path / "cfg"
    body = ("return {'files': [{'path': '/tmp/' + str(i) + 'p' * 100000, "
            "'operation': 'w' * 100000, 'note': 'no preview: x'} for i in range(100)]}")
    identity = preview_tool(cfg, "huge", body)
    write_config(cfg, {"tools": {"use": [identity], "rules": ASK_ALL}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    report, events = await dispatch(agent, tmp_path, "huge", {"text": "a"})
    assert report.outcome == "ran"
    size = len(msgspec.json.encode(asked(events).preview))
    assert size <= 2 * approval_preview.MAX_TOTAL_CHARS, size


class SwapsForLinkThenAllows(FixedApprover):
    """While the modal is open, f.txt becomes a link to a file with the same text."""

    def __init__(self, tmp_path):
        super().__init__(True)
        self.tmp_path = tmp_path

    async def approve(self, request):
        (self.tmp_path / "elsewhere.txt").write_text((self.tmp_path / "f.txt").read_text())
        os.unlink(self.tmp_path / "f.txt")
        os.symlink(self.tmp_path / "elsewhere.txt", self.tmp_path / "f.txt")
        return await super().approve(request)


async def test_a_file_swapped_for_a_link_while_asking_is_not_written(tmp_path):
    (tmp_path / "f.txt").write_text("same\n")
    args = {"operations": [{"mode": "append", "path": "f.txt", "content": "more\n"}]}
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args,
                                    approver=SwapsForLinkThenAllows(tmp_path))
    assert asked(events).preview.files[0].symlinks == []
    assert (tmp_path / "elsewhere.txt").read_text() == "same\n"
    assert report.result.isError and "patch_symlink_path" in report.message


async def test_an_edit_previewed_as_failing_does_not_succeed_later(tmp_path):
    """The modal said `no preview: old_text not found`; while it was open the text appeared.
    The user approved a call shown to change nothing: nothing may be written."""
    target = tmp_path / "f.txt"
    target.write_text("nothing here\n")
    args = {"operations": [{"mode": "replace_text", "path": "f.txt", "old_text": "SAFE=1",
                            "new_text": "SAFE=0"}]}
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args,
                                    approver=ChangesFileThenAllows(target, "SAFE=1\n"))
    assert asked(events).preview.files[0].note.startswith("no preview: old_text not found")
    assert target.read_text() == "SAFE=1\n"
    assert report.result.isError


async def test_a_preview_past_its_deadline_does_not_block_the_write(tmp_path):
    """A preview that was not ready in time was approved blind: the handler writes."""
    target = tmp_path / "f.txt"
    target.write_text("a\n")
    args = {"operations": [{"mode": "append", "path": "f.txt", "content": "b\n"}]}
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args,
                                    deadline=0)
    assert asked(events).preview.files[0].note.startswith("no preview: not ready")
    assert not report.result.isError, report.message
    assert target.read_text() == "a\nb\n"


class SwapsBytesThenAllows(FixedApprover):
    """Approves, but while the modal is open the file gets other bytes of the same size."""

    def __init__(self, path, data):
        super().__init__(True)
        self.path, self.data = path, data

    async def approve(self, request):
        assert len(self.data) == self.path.stat().st_size
        self.path.write_bytes(self.data)
        return await super().approve(request)


BINARY = bytes(range(256)) * 4  # not UTF-8: its preview is a note, not a diff
BIG = "".join(f"row {i:07d}\n" for i in range(100_000))  # 1.2 MB: past the preview's read


def big_edit() -> dict:
    return {"operations": [{"mode": "replace_text", "path": "big.txt",
                            "old_text": "row 0000007\n", "new_text": "seven\n"}]}


def binary_edit() -> dict:
    return {"operations": [{"mode": "append", "path": "blob.bin", "content": "tail\n"}]}


async def test_a_binary_file_swapped_for_same_size_bytes_while_asking_is_not_written(tmp_path):
    target = tmp_path / "blob.bin"
    target.write_bytes(BINARY)
    swapped = bytes(reversed(BINARY))
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", binary_edit(),
                                    approver=SwapsBytesThenAllows(target, swapped))
    assert "not UTF-8 text" in asked(events).preview.files[0].note
    assert target.read_bytes() == swapped  # nothing written over bytes nobody saw
    assert report.result.isError and "changed since its preview was approved" in report.message


async def test_one_character_changed_in_a_large_file_while_asking_is_not_written(tmp_path):
    target = tmp_path / "big.txt"
    target.write_text(BIG)
    assert len(BIG) > 1_100_000
    changed = BIG.replace("row 0050000", "row 0050001", 1)
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", big_edit(),
                                    approver=SwapsBytesThenAllows(target, changed.encode()))
    assert "can be read" in asked(events).preview.files[0].note
    assert target.read_text() == changed
    assert report.result.isError and "changed since its preview was approved" in report.message


async def test_a_binary_or_large_file_unchanged_while_asking_is_written(tmp_path):
    (tmp_path / "blob.bin").write_bytes(BINARY)
    (tmp_path / "big.txt").write_text(BIG)
    for args, check in ((binary_edit(), lambda: (tmp_path / "blob.bin").read_bytes()
                         == BINARY + b"tail\n"),
                        (big_edit(), lambda: (tmp_path / "big.txt").read_text()
                         == BIG.replace("row 0000007\n", "seven\n"))):
        report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args)
        assert asked(events).preview.files[0].note  # shown as a note, and yet
        assert len(asked(events).preview.files[0].before_sha256) == 64
        assert not report.result.isError, report.message
        assert check()

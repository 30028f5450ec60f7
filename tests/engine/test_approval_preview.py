"""The approval preview: computed by the engine from the tool's own `preview` (the code the
handler uses), carried on `approval_request`, bounded, never blocking, never failing a call."""

from __future__ import annotations

import asyncio
import hashlib
import os
import time

import msgspec
import pytest

from raw_tui.protocol import bus as ev
from raw_tui.approval import FixedApprover
from raw_tui.config import load_config
from raw_tui.tools import approval_preview
from raw_tui.tools.dispatch import Dispatcher
from tests.engine.misbehaving_tools import EFFECTS_SCHEMA, TEXT_SCHEMA
from tests.config_kit import write_config, write_tool

ASK_ALL = [{"match": "*", "effect": "ask"}]


def agent_with(tmp_path, use=("builtin/write_file",), rules=ASK_ALL):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": list(use), "rules": rules}})
    return load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()


async def dispatch(agent, cwd, name, args, *, approver=True, deadline=None):
    events: list[ev.Event] = []
    bus = ev.Bus()
    bus.subscribe(events.append)
    approver = FixedApprover(approver) if isinstance(approver, bool) else approver
    d = Dispatcher(agent, bus=bus, cwd=str(cwd), approver=approver)
    if deadline is not None:
        d.preview_deadline = deadline
    report = await d.dispatch(name, args, call_id="c1")
    return report, events


def asked(events) -> ev.ApprovalRequest:
    return next(e for e in events if isinstance(e, ev.ApprovalRequest))


def write(tmp_path, *ops):
    return {"operations": list(ops)}


# ---------------------------------------------------------------------------- the case

async def test_preview_shows_the_line_the_handler_replaces(tmp_path):
    """Line 2 holds U+2028: `str.splitlines` saw `harmless` as line 3; write_file replaces
    `rm -rf important`. The preview must show what the handler does."""
    target = tmp_path / "f.txt"
    target.write_text("one\nkeep\u2028harmless\nrm -rf important\nlast\n")
    args = write(tmp_path, {"mode": "replace_lines", "path": "f.txt", "start_line": 3,
                            "end_line": 3, "content": "echo safe\n"})
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args)
    assert report.outcome == "ran" and not report.result.isError, report.message
    [file] = asked(events).preview.files
    assert (file.path, file.operation) == (str(target), "write")
    assert "-rm -rf important\n+echo safe" in file.diff
    assert "-harmless" not in file.diff and "-keep" not in file.diff
    assert file.after == target.read_text() == "one\nkeep\u2028harmless\necho safe\nlast\n"
    assert file.before == "one\nkeep\u2028harmless\nrm -rf important\nlast\n"


async def test_the_approver_gets_the_same_preview(tmp_path):
    (tmp_path / "a.txt").write_text("x\n")
    approver = FixedApprover(False)
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file",
                               write(tmp_path, {"mode": "append", "path": "a.txt",
                                                "content": "y\n"}), approver=approver)
    assert approver.requests[0].preview == asked(events).preview
    assert asked(events).preview.files[0].after == "x\ny\n"
    assert (tmp_path / "a.txt").read_text() == "x\n"  # denied: nothing written


async def test_no_approver_computes_no_preview(tmp_path):
    cfg = tmp_path / "cfg"
    write_tool(cfg, "spy", f'''
        def preview(args, ctx):
            open({str(tmp_path / "called")!r}, "w").close()
            return {{"files": []}}
        def handler(args, ctx):
            return "ran"
    ''', schema=TEXT_SCHEMA)
    write_config(cfg, {"tools": {"use": ["agent/spy"], "rules": ASK_ALL}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    report, _ = await dispatch(agent, tmp_path, "spy", {"text": "a"}, approver=None)
    assert report.code == "approval_required"
    assert not (tmp_path / "called").exists()
    report, events = await dispatch(agent, tmp_path, "spy", {"text": "a"})
    assert report.outcome == "ran" and (tmp_path / "called").exists()
    assert asked(events).preview == ev.ApprovalPreview(files=[])


async def test_an_allowed_call_runs_no_preview(tmp_path):
    report, events = await dispatch(agent_with(tmp_path, rules=[]), tmp_path, "write_file",
                                    write(tmp_path, {"mode": "overwrite", "path": "n.txt",
                                                     "content": "n"}))
    assert report.outcome == "ran" and report.rule == "allow"
    assert not any(isinstance(e, ev.ApprovalRequest) for e in events)


# ---------------------------------------------------------------------------- failures

async def test_a_failing_edit_is_a_note_and_the_handler_fails_the_same_way(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    args = write(tmp_path, {"mode": "replace_text", "path": "a.txt", "old_text": "zeta",
                            "new_text": "z"})
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args)
    [file] = asked(events).preview.files
    assert file.note == f"no preview: old_text not found in {tmp_path / 'a.txt'}"
    assert file.diff == "" and file.before is None and file.after is None
    assert report.code == "tool_error" and f"old_text not found in {tmp_path}" in report.message


def preview_tool(cfg, tool_id, body):
    write_tool(cfg, tool_id, "import time\n"
               "def describe_effects(args, ctx):\n"
               "    return {'files': [{'path': '/tmp/p/' + args['text'], 'operation': 'write'}]}\n"
               f"def preview(args, ctx):\n    {body}\n"
               "def handler(args, ctx):\n    return 'ran'\n",
               schema=TEXT_SCHEMA, effects_schema=EFFECTS_SCHEMA)
    return f"agent/{tool_id}"


@pytest.mark.parametrize("body,note", [
    ("raise ValueError('cannot\\nlook')", "no preview: cannot look"),
    ("return 5", "no preview: Expected `object`, got `int`"),
    ("return {'files': [{'path': 1}]}", "no preview: Expected `str`, got `int` - at "
                                        "`$.files[0].path`"),
    ("time.sleep(30)", "no preview: not ready after 0.5 s"),
])
async def test_a_preview_that_fails_gives_notes_never_a_failed_call(tmp_path, body, note):
    cfg = tmp_path / "cfg"
    identity = preview_tool(cfg, "pv", body)
    write_config(cfg, {"tools": {"use": [identity], "rules": ASK_ALL}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    start = time.monotonic()
    report, events = await dispatch(agent, tmp_path, "pv", {"text": "a"}, deadline=0.5)
    assert time.monotonic() - start < 10
    assert report.outcome == "ran" and report.result.content == [{"type": "text", "text": "ran"}]
    assert asked(events).preview.files == [
        ev.FilePreview(path="/tmp/p/a", operation="write", note=note)]


async def test_an_async_preview_is_a_note(tmp_path):
    cfg = tmp_path / "cfg"
    write_tool(cfg, "apv", "async def preview(args, ctx):\n    return {'files': []}\n"
               "def handler(args, ctx):\n    return 'ran'\n", schema=TEXT_SCHEMA)
    write_config(cfg, {"tools": {"use": ["agent/apv"], "rules": ASK_ALL}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    report, events = await dispatch(agent, tmp_path, "apv", {"text": "a"})
    assert report.outcome == "ran"
    assert asked(events).preview.files == [ev.FilePreview(
        path="", operation="", note="no preview: preview must return synchronously")]


async def test_cancel_while_the_preview_runs_stops_the_call(tmp_path):
    cfg = tmp_path / "cfg"
    identity = preview_tool(cfg, "slow", "time.sleep(30)")
    write_config(cfg, {"tools": {"use": [identity], "rules": ASK_ALL}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    d = Dispatcher(agent, cwd=str(tmp_path), approver=FixedApprover(True))
    cancel = asyncio.Event()
    task = asyncio.create_task(d.dispatch("slow", {"text": "a"}, call_id="c1", cancel=cancel))
    await asyncio.sleep(0.2)
    cancel.set()
    report = await asyncio.wait_for(task, 5)
    assert (report.stage, report.code) == ("approval", "cancelled")


# ---------------------------------------------------------------------------- bounded

def one_note(events) -> str:
    [file] = asked(events).preview.files
    assert file.diff == "" and file.before is None and file.after is None
    assert "\n" not in file.note
    return file.note


async def test_a_fifo_never_blocks_the_approval_request(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    bus = ev.Bus()
    arrived = asyncio.get_running_loop().create_future()
    bus.subscribe(lambda e: isinstance(e, ev.ApprovalRequest) and not arrived.done()
                  and arrived.set_result(e))
    d = Dispatcher(agent_with(tmp_path), bus=bus, cwd=str(tmp_path), approver=FixedApprover(False))
    d.preview_deadline = 60  # a read that blocked would show as a wait, not as a note
    start = time.monotonic()
    task = asyncio.create_task(d.dispatch("write_file", write(tmp_path, {
        "mode": "append", "path": "pipe", "content": "x"}), call_id="c1"))
    event = await asyncio.wait_for(arrived, 10)
    elapsed = time.monotonic() - start
    await task
    assert event.preview.files[0].note == f"no preview: {fifo} is a FIFO, not a regular file"
    assert elapsed < 30  # refused at once: nothing waited for a writer or the deadline


@pytest.mark.parametrize("mode", ["append", "overwrite"])
async def test_dev_zero_and_a_device_are_refused(tmp_path, mode):
    args = write(tmp_path, {"mode": mode, "path": "/dev/zero", "content": "x"})
    report, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args,
                                    approver=False)
    assert one_note(events) == "no preview: /dev/zero is a character device, not a regular file"


async def test_a_2_gib_sparse_file_is_not_read(tmp_path):
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(2 * 1024 ** 3)
    agent = agent_with(tmp_path)
    for op in ({"mode": "append", "path": "big.bin", "content": "x"},
               {"mode": "overwrite", "path": "big.bin", "content": "x"}):
        _, events = await dispatch(agent, tmp_path, "write_file", write(tmp_path, op),
                                   approver=False, deadline=60)
        assert one_note(events) == (f"no preview: {big} is {2 * 1024 ** 3} bytes; at most "
                                    f"{approval_preview.MAX_READ_BYTES} can be read")


async def test_a_directory_is_a_note(tmp_path):
    (tmp_path / "d").mkdir()
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file",
                               write(tmp_path, {"mode": "overwrite", "path": "d",
                                                "content": "x"}), approver=False)
    assert one_note(events) == f"no preview: {tmp_path / 'd'} is a directory, not a regular file"


async def test_a_path_that_vanishes_is_previewed_as_it_is_then(tmp_path):
    """Gone before the preview reads it: the file is shown as created (what the handler
    would do with the same disk); a parent that is a file is a note."""
    (tmp_path / "plain").write_text("x")
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", write(
        tmp_path, {"mode": "overwrite", "path": "gone.txt", "content": "new\n"}),
        approver=False)
    assert asked(events).preview.files[0].after == "new\n"
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", write(
        tmp_path, {"mode": "append", "path": "plain/under", "content": "x"}), approver=False)
    assert one_note(events) == ("no preview: patch_parent_not_directory: cannot write "
                                f"{tmp_path / 'plain/under'}: {tmp_path / 'plain'} is not a "
                                "directory")


def test_read_regular_refuses_a_file_swapped_for_a_fifo_after_stat(tmp_path, monkeypatch):
    """The opened descriptor is checked again (fstat): a FIFO swapped in after `stat` is
    refused, and opening it never blocks (O_NONBLOCK)."""
    from raw_tui.protocol.errors import RawError
    from raw_tui.tools import fsread

    path = tmp_path / "swap"
    path.write_text("x")
    real_stat = os.stat

    def stat_then_swap(p, *a, **kw):
        info = real_stat(p, *a, **kw)
        if str(p) == str(path):
            os.unlink(path)
            os.mkfifo(path)
        return info

    monkeypatch.setattr(fsread.os, "stat", stat_then_swap)
    with pytest.raises(RawError, match="is a FIFO, not a regular file"):
        fsread.read_regular(str(path), 100)


def test_read_regular_takes_a_file_that_vanishes_after_stat_as_missing(tmp_path, monkeypatch):
    from raw_tui.tools import fsread

    path = tmp_path / "going"
    path.write_text("x")
    real_stat = os.stat

    def stat_then_remove(p, *a, **kw):
        info = real_stat(p, *a, **kw)
        if str(p) == str(path):
            os.unlink(path)
        return info

    monkeypatch.setattr(fsread.os, "stat", stat_then_remove)
    assert fsread.read_regular(str(path), 100) is None


async def test_a_big_file_gives_a_clipped_diff_and_no_texts(tmp_path):
    lines = [f"line {i}\n" for i in range(20000)]
    (tmp_path / "big.txt").write_text("".join(lines))
    args = write(tmp_path, {"mode": "overwrite", "path": "big.txt", "content": "short\n"})
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args,
                               approver=False)
    [file] = asked(events).preview.files
    assert file.before is None and file.after is None and file.note == ""
    diff = file.diff.split("\n")
    assert len(diff) == approval_preview.MAX_DIFF_LINES + 1
    assert diff[-1] == f"… {20000 + 4 - approval_preview.MAX_DIFF_LINES} more lines"


async def test_many_files_stay_under_the_event_bound(tmp_path):
    body = "".join(f"{i:05d} " * 10 + "\n" for i in range(800))  # ~48 KiB each
    ops = [{"mode": "overwrite", "path": f"f{i}.txt", "content": body} for i in range(16)]
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file",
                               {"operations": ops}, approver=False)
    event = asked(events)
    size = len(msgspec.json.encode(event.preview))
    assert size < approval_preview.MAX_TOTAL_CHARS * 1.1
    notes = [f.note for f in event.preview.files if f.note]
    assert notes and set(notes) == {"no preview: the preview is over its size limit"}
    assert event.preview.files[0].diff.startswith(f"--- /dev/null\n+++ {tmp_path / 'f0.txt'}")


# ---------------------------------------------------------------------------- the event

async def test_the_event_round_trips_through_msgspec_and_the_history(tmp_path):
    (tmp_path / "a.txt").write_text("old\n")
    os.symlink(tmp_path, tmp_path / "link")
    args = write(tmp_path, {"mode": "replace_text", "path": "link/a.txt", "old_text": "old",
                            "new_text": "new"})
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file", args)
    event = asked(events)
    [file] = event.preview.files
    assert file.symlinks == [str(tmp_path / "link")]
    data = ev.encode(event)
    assert ev.decode(data) == event
    raw = msgspec.json.decode(data)
    shown = dict(raw["preview"]["files"][0])
    shown.pop("before_sha256", None)  # what the preview read, when it read anything
    assert shown == {  # write_file refuses the link: a note
        "path": str(tmp_path / "link/a.txt"), "operation": "write", "note": file.note,
        "symlinks": [str(tmp_path / "link")]}
    assert file.note.startswith("no preview: patch_symlink_path: ")
    with pytest.raises(msgspec.ValidationError):  # strict: a client cannot send nonsense
        ev.decode(data.replace(b'"operation":"write"', b'"operation":5'))


async def test_a_tool_without_preview_gets_its_effects_symlinks(tmp_path):
    os.symlink(tmp_path, tmp_path / "via")
    cfg = tmp_path / "cfg"
    write_tool(cfg, "fx", "def describe_effects(args, ctx):\n"
               f"    return {{'files': [{{'path': {str(tmp_path / 'via/x')!r}, "
               "'operation': 'delete'}]}\n"
               "def handler(args, ctx):\n    return 'ran'\n",
               schema=TEXT_SCHEMA, effects_schema=EFFECTS_SCHEMA)
    write_config(cfg, {"tools": {"use": ["agent/fx"], "rules": ASK_ALL}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    _, events = await dispatch(agent, tmp_path, "fx", {"text": "a"})
    assert asked(events).preview.files == [ev.FilePreview(
        path=str(tmp_path / "via/x"), operation="delete", symlinks=[str(tmp_path / "via")])]


async def test_sessions_show_gives_the_preview_back(tmp_path):
    """Saved in the history as published, read back by `raw-tui sessions show`."""
    import json

    from raw_tui.session.store import HistoryStore
    from tests.config_kit import raw_tui

    (tmp_path / "a.txt").write_text("keep\u2028this\nold\n")
    store = HistoryStore()
    store.create("s-preview", cwd=str(tmp_path), agent="main", model="m", config="")
    bus = ev.Bus()
    bus.subscribe(lambda event: store.append("s-preview", event), first=True)
    d = Dispatcher(agent_with(tmp_path), bus=bus, cwd=str(tmp_path), approver=FixedApprover(True))
    await d.dispatch("write_file", write(tmp_path, {"mode": "replace_lines", "path": "a.txt",
                                                    "start_line": 2, "end_line": 2,
                                                    "content": "new\n"}), call_id="c1")
    store.close()
    shown = raw_tui("sessions", "show", "s-preview")
    assert shown.returncode == 0, shown.stderr
    [request] = [e for e in map(json.loads, shown.stdout.strip("\n").split("\n"))
                 if e["type"] == "approval_request"]
    [file] = request["preview"]["files"]
    assert file["after"] == (tmp_path / "a.txt").read_text() == "keep\u2028this\nnew\n"
    assert "-old\n+new" in file["diff"]


async def test_a_tool_module_that_fails_to_load_is_a_note(tmp_path):
    """The module is first imported for the preview (no validate_args, no effects): an
    import error is a note, and the handler step then reports it as a tool error."""
    cfg = tmp_path / "cfg"
    write_tool(cfg, "broken", "raise ImportError('no such thing')\n"
               "def preview(args, ctx):\n    return {'files': []}\n"
               "def handler(args, ctx):\n    return 'ran'\n", schema=TEXT_SCHEMA)
    write_config(cfg, {"tools": {"use": ["agent/broken"], "rules": ASK_ALL}})
    agent = load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()
    report, events = await dispatch(agent, tmp_path, "broken", {"text": "a"})
    assert asked(events).preview.files == [ev.FilePreview(
        path="", operation="", note="no preview: no such thing")]
    assert report.code == "tool_error" and "no such thing" in report.message


async def test_a_new_file_is_diffed_from_dev_null_an_empty_one_too(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    ops = [{"mode": "overwrite", "path": "new.txt", "content": "fresh\n"},
           {"mode": "overwrite", "path": "blank.txt", "content": ""},
           {"mode": "overwrite", "path": "empty.txt", "content": "x\n"}]
    _, events = await dispatch(agent_with(tmp_path), tmp_path, "write_file",
                               {"operations": ops}, approver=False)
    new, blank, empty = asked(events).preview.files
    assert new.diff == f"--- /dev/null\n+++ {tmp_path / 'new.txt'}\n@@ -0,0 +1 @@\n+fresh"
    assert blank.diff == f"--- /dev/null\n+++ {tmp_path / 'blank.txt'}"  # created, empty
    assert empty.diff.startswith(f"--- {tmp_path / 'empty.txt'}\n")  # it exists: no /dev/null

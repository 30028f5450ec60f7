"""A write_file's checkpoint is deferred (docs/checkpoints.md, "Storage"): the previous file
is kept by a hard link (or its bytes copied) before the write, chunked and hashed after it on
the store's settling thread; through a real `raw-tui run` the settled store keeps one copy of equal content, and a
checkpoint a killed process left raw is restored by `sessions undo`, which settles it."""

from __future__ import annotations

import json
import os

from raw_tui.checkpoints import service
from raw_tui.checkpoints.store import Store
from tests.checkpoints.checkpoint_kit import Session, checkpoint_dir, write


def _ledger(session_id: str) -> list[dict]:
    text = (checkpoint_dir(session_id) / "ledger.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_a_write_files_checkpoint_is_copied_raw_then_settled_into_chunks(tmp_path):
    big = "".join(f"{i:06d} some line of text\n" for i in range(60_000)).encode()  # 1.5 MB
    s = Session(tmp_path, [write({"mode": "overwrite", "path": "big.txt", "content": "x\n"}),
                           write({"mode": "overwrite", "path": "big.txt",
                                  "content": big.decode()}),
                           write({"mode": "overwrite", "path": "big.txt", "content": "y\n"})])
    (s.work / "big.txt").write_bytes(big)
    for _ in range(3):
        s.turn()
    records = _ledger(s.session_id)
    [first, _, third] = [r for r in records if r["t"] == "checkpoint"]
    path = str(s.work / "big.txt")
    assert "raw" in first["paths"][path] and "sha" not in first["paths"][path]  # before
    settled = {r["id"]: r for r in records if r["t"] == "settled"}
    assert set(settled) == {r["id"] for r in records if r["t"] == "checkpoint"}
    assert len(settled[first["id"]]["paths"][path]["chunks"]) > 1
    assert settled[third["id"]]["objects"] == {}  # the same 1.5 MB again: no new chunk
    store = Store(s.session_id)
    assert store.content(store.checkpoints[0].paths[path]) == big
    assert store.bytes_stored() < len(big) + 64 * 1024  # one copy, not two
    assert first["paths"][path]["raw"][0].startswith("@")  # a hard link, no byte copied
    assert list((checkpoint_dir(s.session_id) / "staged").iterdir()) == []  # gone, settled
    code, report, _ = s.undo("--turn", "1")
    assert code == 0 and (s.work / "big.txt").read_bytes() == big


def test_a_checkpoint_left_raw_by_a_killed_process_is_settled_and_undone(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    target = work / "a.txt"
    target.write_bytes(b"before\n" * 30_000)
    store = Store("s-raw", base=tmp_path / "ck")
    c = store.record("t1", "c1", [str(target)], defer=True)
    (work / "new").write_bytes(b"after\n")
    os.replace(work / "new", target)  # as write_file commits: a rename
    store.after(c)  # ... and the process dies: never settled
    again = Store("s-raw", base=tmp_path / "ck")
    assert "raw" in again.checkpoints[0].paths[str(target)]
    from raw_tui.protocol import bus as ev

    history = [ev.UserMessage(text="go", turn_id="t1")]
    outcome = service.run(again, history, turn=1)
    assert outcome.code == service.EXIT_DONE
    assert target.read_bytes() == b"before\n" * 30_000
    reloaded = Store("s-raw", base=tmp_path / "ck")
    recorded = reloaded.checkpoints[0].paths[str(target)]
    assert "raw" not in recorded and recorded["sha"]
    assert os.listdir(tmp_path / "ck" / "s-raw" / "packs") == [f"{reloaded.checkpoints[0].pack}.pack"]


def test_a_file_with_other_links_is_copied_not_linked(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    target = work / "a.txt"
    target.write_bytes(b"shared\n" * 20_000)
    os.link(target, work / "other.txt")
    store = Store("s-copy", base=tmp_path / "ck")
    c = store.record("t1", "c1", [str(target)], defer=True)
    raw = c.paths[str(target)]["raw"]
    assert raw[0] == c.id and raw[2] == len(b"shared\n" * 20_000)  # in its pack
    assert os.stat(target).st_nlink == 2  # no link of ours added
    store.settle(c)
    assert store.content(c.paths[str(target)]) == b"shared\n" * 20_000
    assert not (tmp_path / "ck" / "s-copy" / "packs" / f"{c.id}.pack").exists()

"""Undo of a turn through `raw-tui sessions undo`, after real `raw-tui run` turns in the real
sandbox: the exact tree of before the turn, conflicts kept, unobserved turns named, a killed
undo finished by running it again, a busy session refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.checkpoints.checkpoint_kit import Session, bash, patch, tree, write
from tests.sandbox.sandbox_kit import needs_sandbox  # noqa: F401

TEN = [
    # 1 write_file overwrite (two files)
    write({"mode": "overwrite", "path": "a.txt", "content": "a1\na2\n"},
          {"mode": "overwrite", "path": "sub/b.txt", "content": "b1\n"}),
    # 2 bash: a directory tree, a script made executable
    bash("mkdir -p tree/x/y && echo f > tree/x/y/f && echo g > tree/g",
         "printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 755 run.sh"),
    # 3 write_file append
    write({"mode": "append", "path": "a.txt", "content": "a3\n"}),
    # 4 write_file replace_text and replace_lines
    write({"mode": "replace_text", "path": "a.txt", "old_text": "a2", "new_text": "A2"},
          {"mode": "replace_lines", "path": "sub/b.txt", "start_line": 1, "end_line": 1,
           "content": "B1\nB2\n"}),
    # 5 write_file patch: add, update, move, delete
    patch("*** Begin Patch\n*** Add File: c.txt\n+c1\n+c2\n"
          "*** Update File: a.txt\n@@\n a1\n-A2\n+a-two\n"
          "*** Update File: sub/b.txt\n*** Move to: moved/b.txt\n@@\n B1\n-B2\n+b-two\n"
          "*** Delete File: keep.txt\n*** End Patch\n"),
    # 6 bash: edit, delete, chmod, symlink, remove a tree
    bash("sed -i 's/c1/C1/' c.txt", "rm run.sh", "chmod 600 a.txt", "ln -s c.txt link",
         "rm -r tree/x"),
    # 7 bash: another tree, a symlink retargeted, a directory mode
    bash("mkdir -p deep/p/q && for i in 1 2 3; do echo $i > deep/p/q/$i; done",
         "ln -sfn a.txt link", "chmod 700 deep/p"),
    # 8 write_file overwrite a file created by bash
    write({"mode": "overwrite", "path": "deep/p/q/2", "content": "two\n"}),
    # 9 bash: rename, mode change, a file replaced by a directory
    bash("mv c.txt c2.txt", "chmod 640 moved/b.txt", "rm tree/g && mkdir tree/g && echo in > tree/g/in"),
    # 10 write_file patch delete and add
    patch("*** Begin Patch\n*** Delete File: c2.txt\n*** Add File: z/z.txt\n+z\n*** End Patch\n"),
]


def _seed(work):
    (work / "keep.txt").write_text("kept by nobody\n")
    (work / "old.bin").write_bytes(bytes(range(256)) * 10)
    os.chmod(work / "old.bin", 0o604)


def test_undo_of_turn_4_restores_the_exact_tree_of_before_it(tmp_path, needs_sandbox):
    s = Session(tmp_path, TEN)
    _seed(s.work)
    trees = []
    for _ in range(10):
        trees.append(tree(s.work))
        s.turn()
    assert (s.work / "z" / "z.txt").exists() and (s.work / "tree" / "g" / "in").exists()
    code, report, _ = s.undo("--turn", "4", "--dry-run")
    assert code == 0 and report["files"], report
    assert tree(s.work) != trees[3]  # a dry run changes nothing
    code, report, err = s.undo("--turn", "4")
    assert code == 0, err
    assert report["unobserved_turns"] == []
    assert {f["action"] for f in report["files"]} <= {"restored", "removed"}
    assert tree(s.work) == trees[3]
    # the undo event is in the history and `sessions show --output text` shows it
    undo = [e for e in s.history() if e["type"] == "undo"]
    assert len(undo) == 1 and undo[0]["files"] == report["files"]
    text = s.cli("sessions", "show", s.session_id, "--output", "text").stdout
    assert "[undo of turn 4 and later:" in text
    # then turns 1-3 can be undone too, back to the seed
    code, report, _ = s.undo("--turn", "1")
    assert code == 0 and tree(s.work) == trees[0]
    code, report, _ = s.undo()
    assert code == 1 and report["files"] == []


def test_a_user_edit_is_a_conflict_kept_unless_overwritten(tmp_path, needs_sandbox):
    s = Session(tmp_path, TEN[:6])
    _seed(s.work)
    trees = []
    for _ in range(5):
        trees.append(tree(s.work))
        s.turn()
    (s.work / "a.txt").write_text("the user's own edit\n")  # after turn 5
    s.turn()  # turn 6 (chmod a.txt: the sandbox commits over the edit's content as is)
    edited = tree(s.work)["a.txt"]
    code, report, _ = s.undo("--turn", "3", "--dry-run")
    assert code == 3
    code, report, err = s.undo("--turn", "3")
    assert code == 3, err
    conflicts = [f["path"] for f in report["files"] if f["action"] == "conflict"]
    assert conflicts == [str(s.work / "a.txt")]
    assert tree(s.work)["a.txt"] == edited  # the user's edit is kept
    expected = dict(trees[2])
    now = tree(s.work)
    assert {k: v for k, v in now.items() if k != "a.txt"} == \
        {k: v for k, v in expected.items() if k != "a.txt"}
    code, report, _ = s.undo("--turn", "3", "--overwrite-conflicts")
    assert code == 0, report
    assert tree(s.work) == trees[2]


def test_a_workspace_mode_bash_turn_is_named_not_undoable(tmp_path, needs_sandbox):
    s = Session(tmp_path, [write({"mode": "overwrite", "path": "a.txt", "content": "1\n"}),
                           bash("echo direct > d.txt", "echo more >> d.txt")],
                sandbox={"mode": "workspace"})
    s.turn()
    s.turn()
    code, report, err = s.undo("--turn", "1")
    assert code == 0
    assert report["unobserved_turns"] == [2]
    assert "not undoable: turn 2 ran 2 commands outside the overlay" in err
    assert not (s.work / "a.txt").exists()
    assert (s.work / "d.txt").read_text() == "direct\nmore\n"  # not observed, not touched


def test_kill_9_during_an_undo_then_undo_again_finishes_it(tmp_path, needs_sandbox):
    s = Session(tmp_path, [
        bash("mkdir many && for i in $(seq 3000); do head -c 20000 /dev/urandom > many/$i; done"),
        bash("for i in $(seq 3000); do echo changed >> many/$i; done; echo x > new.txt")])
    s.turn()
    before = tree(s.work)
    s.turn()
    proc = subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "--config", str(s.cfg),
                             "--cwd", str(s.work), "sessions", "undo", s.session_id],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    many = s.work / "many"

    def restored() -> int:
        """Files back at their old size (the undo's own temp files come and go meanwhile)."""
        return sum(not path.name.startswith(".") and _size(path) == 20000
                   for path in many.iterdir())

    # a sample spread over the folder, cheap to poll: the undo is killed as soon as one of
    # them is back, whatever order it restores in, so it is surely part-way, however loaded
    # the machine is
    sample = [many / str(i) for i in range(1, 3001, 60)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if any(_size(path) == 20000 for path in sample):
            break
        time.sleep(0.001)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = restored()
    assert 0 < partial < 3000, partial  # it was killed part-way
    code, report, err = s.undo()
    assert code == 0, err
    assert tree(s.work) == before
    assert len(report["files"]) == 3001
    assert len([e for e in s.history() if e["type"] == "undo"]) == 1


def test_an_undo_removes_the_temp_file_a_killed_undo_left(tmp_path, needs_sandbox):
    """A killed undo's temp file (raw-tui's temp name, its writer gone) in a folder the next
    undo writes to is removed; a live writer's, and anyone else's file, stay."""
    from raw_tui.tools import fsatomic

    s = Session(tmp_path, [bash("mkdir d && echo one > d/a"), bash("echo two > d/a")])
    s.turn()
    before = tree(s.work)
    s.turn()
    boot, pid, start = fsatomic.parse_writer(f".a.{fsatomic.writer_token()}.x.tmp")
    killed = s.work / "d" / f".a.{fsatomic.MARK}{boot}-{pid}-{start + 1}.abcdefgh.tmp"
    live = s.work / "d" / f".a.{fsatomic.writer_token()}.abcdefgh.tmp"
    killed.write_text("half")
    live.write_text("being written")
    code, _, err = s.undo()
    assert code == 0, err
    assert not killed.exists() and live.read_text() == "being written"
    live.unlink()
    assert tree(s.work) == before


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return -1


def test_an_open_session_is_refused(tmp_path, needs_sandbox):
    s = Session(tmp_path, [write({"mode": "overwrite", "path": "a.txt", "content": "1\n"}),
                           bash("sleep 30")])
    s.turn()
    running = subprocess.Popen([sys.executable, "-m", "raw_tui.cli", "--config", str(s.cfg),
                                "--cwd", str(s.work), "run", "turn 2", "--continue"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(
                e["type"] == "tool_call" and e["call_id"] == "c2" for e in s.history()):
            time.sleep(0.1)  # turn 2 runs its `sleep 30`
        proc = s.cli("sessions", "undo", s.session_id)
        assert proc.returncode == 1 and "busy" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert (s.work / "a.txt").exists()
    finally:
        running.send_signal(signal.SIGINT)
        running.wait(timeout=30)
    code, report, _ = s.undo()
    assert code == 0 and not (s.work / "a.txt").exists()


def test_bad_turns_and_deleted_sessions(tmp_path, needs_sandbox):
    s = Session(tmp_path, [write({"mode": "overwrite", "path": "a.txt", "content": "1\n"})])
    s.turn()
    code, report, _ = s.undo("--turn", "7")
    assert code == 1 and report["message"] == "no turn 7 (the session has 1 turn)"
    proc = s.cli("sessions", "undo", "nosuch")
    assert proc.returncode == 1 and proc.stderr.strip() == "raw-tui: unknown session nosuch"
    from tests.checkpoints.checkpoint_kit import checkpoint_dir

    assert checkpoint_dir(s.session_id).exists()
    assert s.cli("sessions", "delete", s.session_id).returncode == 0
    assert not checkpoint_dir(s.session_id).exists()


def test_a_session_live_in_a_host_is_refused(tmp_path):
    from tests.config_kit import raw_tui
    from tests.host.host_kit import setup, start, wait_gone

    args = setup(tmp_path, [])
    host = start(args)
    try:
        proc = raw_tui("--config", args.config, "--cwd", args.cwd, "sessions", "undo",
                       host.session_id)
        assert proc.returncode == 1
        assert proc.stderr.strip() == (
            f"raw-tui: session {host.session_id} is live (idle) in a host: undo it there "
            f"(raw-tui attach {host.session_id}), or end it first")
        assert proc.stdout == ""
    finally:
        os.kill(host.pid, signal.SIGTERM)
        assert wait_gone(host.pid)

"""A write killed with `kill -9` halfway leaves its temp file beside the target; the next
write to that directory removes it, and only it: never a live writer's temp file, never a
file that is not ours (raw_tui/tools/fsatomic.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

from tests.config_kit import raw_tui, write_config

BIG = 14 * 1024 * 1024

# A real write_file call in its own process, held inside its write: the temp file holds every
# byte (written, not yet fsynced and renamed) when it says "ready".
WRITER = textwrap.dedent(f"""
    import os, sys, time
    from raw_tui.frozen import freeze
    from raw_tui.tools.context import ToolContext
    from raw_tui.tools.registry import BUILTIN_DIR, load_tool

    def held(fd):
        print("ready", flush=True)
        time.sleep(3600)

    os.fsync = held
    spec = load_tool("builtin/write_file", BUILTIN_DIR / "write_file")
    args = {{"operations": [{{"mode": "overwrite", "path": sys.argv[1], "content": "x" * {BIG}}}]}}
    spec.module().handler(freeze(args), ToolContext(cwd=os.getcwd(), tool_call_id="c1"))
""")


def start_writer(cwd, name):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, name], cwd=cwd,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    return proc


def temps(cwd, name):
    return sorted(n for n in os.listdir(cwd) if n.startswith(f".{name}.") and n.endswith(".tmp"))


def test_the_next_write_removes_a_killed_writers_temp_file_and_nothing_else(tmp_path):
    cwd = tmp_path / "work"
    cwd.mkdir()
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/write_file"]}})
    killed = start_writer(cwd, "big.bin")
    live = start_writer(cwd, "other.bin")
    try:
        [stale] = temps(cwd, "big.bin")
        [running] = temps(cwd, "other.bin")
        assert (cwd / stale).stat().st_size == BIG
        assert ".raw-tui-" in stale and f"-{killed.pid}-" in stale
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait(10)
        assert temps(cwd, "big.bin") == [stale]  # what kill -9 leaves
        # not ours: another tool's temp file, ours in name but another user's, ours in
        # name but a symbolic link
        (cwd / ".big.bin.a1b2c3.tmp").write_text("someone else's")
        theirs = cwd / stale.replace(f"-{killed.pid}-", "-999999-")
        theirs.write_text("another user's")
        os.chown(theirs, 65534, 65534)
        link = cwd / stale.replace(f"-{killed.pid}-", "-999998-")
        link.symlink_to(cwd / ".big.bin.a1b2c3.tmp")

        proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(cwd), "call",
                       "write_file", "--args", json.dumps({"operations": [
                           {"mode": "overwrite", "path": "note.txt", "content": "hi\n"}]}),
                       "--approve", "yes")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert json.loads(proc.stdout)["outcome"] == "ran"
        assert (cwd / "note.txt").read_text() == "hi\n"
        left = sorted(os.listdir(cwd))
        assert stale not in left  # its writer is gone
        assert running in left  # a live writer's
        assert {".big.bin.a1b2c3.tmp", theirs.name, link.name} <= set(left)
        assert not (cwd / "big.bin").exists()
    finally:
        for proc in (killed, live):
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)
            proc.stdout.close()


def test_a_pid_reused_by_another_process_does_not_keep_a_temp_file(tmp_path):
    """The writer's start time is in the name: a temp file whose pid now belongs to another
    process (here: this test's own pid, started at another time) is stale."""
    from raw_tui.tools import fsatomic

    token = fsatomic.writer_token()
    boot, pid, start = fsatomic.parse_writer(f".f.{token}.abc.tmp")
    assert (pid, boot) == (os.getpid(), fsatomic.boot_id())
    reused = tmp_path / f".f.{fsatomic.MARK}{boot}-{pid}-{start + 1}.abcdefgh.tmp"
    mine = tmp_path / f".g.{token}.abcdefgh.tmp"
    reused.write_text("")
    mine.write_text("")
    assert fsatomic.sweep_stale(str(tmp_path)) == [str(reused)]
    assert mine.exists()


def test_a_temp_file_from_another_boot_or_namespace_waits_a_day(tmp_path):
    """Its writer cannot be seen from here (a former boot, a container sharing the
    directory): kept while it may still be written, removed once untouched for a day."""
    import time

    from raw_tui.tools import fsatomic

    other = "0badcafe" if fsatomic.boot_id() != "0badcafe" else "0badcaff"
    fresh = tmp_path / f".a.{fsatomic.MARK}{other}-1-1.abcdefgh.tmp"
    old = tmp_path / f".b.{fsatomic.MARK}{other}-1-1.abcdefgh.tmp"
    fresh.write_text("")
    old.write_text("")
    two_days_ago = time.time() - 2 * fsatomic.FOREIGN_BOOT_STALE_S
    os.utime(old, (two_days_ago, two_days_ago))
    assert fsatomic.sweep_stale(str(tmp_path)) == [str(old)]
    assert fresh.exists()

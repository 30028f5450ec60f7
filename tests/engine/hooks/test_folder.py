"""Folder limits, snapshots, and where hook ids resolve."""

from __future__ import annotations

import json
import os
import sys

import pytest

from hook_kit import load, write_hook
from raw_tui.protocol.errors import ConfigError
from raw_tui.hooks import run_hook

PAYLOAD = b'{"event":"Stop"}'


def test_256_files_pass_257_fail(tmp_path):
    folder = write_hook(tmp_path, "h", "pass")  # hook.json + hook.py
    for i in range(254):
        (folder / f"f{i}.txt").write_text("x")
    load(tmp_path, ["agent/h"]).close()
    (folder / "sub").mkdir()
    (folder / "sub" / "one-more.txt").write_text("x")
    with pytest.raises(ConfigError, match=r"agents.a.hooks.use\[0\]: hook agent/h: more than 256 files in hooks/h"):
        load(tmp_path, ["agent/h"])


def test_more_than_16_mib_fails(tmp_path):
    folder = write_hook(tmp_path, "h", "pass")
    with open(folder / "big.bin", "wb") as f:
        f.truncate(16 * 1024 * 1024)
    with pytest.raises(ConfigError, match="more than 16 MiB in hooks/h"):
        load(tmp_path, ["agent/h"])


def test_hook_json_over_64_kib_fails(tmp_path):
    folder = write_hook(tmp_path, "h", "pass")
    doc = json.loads((folder / "hook.json").read_text())
    text = json.dumps(doc)[:-1] + "," + " " * (64 * 1024) + '"x": 1}'
    (folder / "hook.json").write_text(text)
    with pytest.raises(ConfigError, match="hooks/h/hook.json is larger than 64 KiB"):
        load(tmp_path, ["agent/h"])


@pytest.mark.parametrize("where", ["file", "dir", "nested", "dangling"])
def test_a_symlink_anywhere_is_rejected_and_named(tmp_path, where):
    folder = write_hook(tmp_path, "h", "pass")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "t.txt").write_text("x")
    if where == "file":
        (folder / "link.txt").symlink_to(tmp_path / "outside" / "t.txt")
        name = "hooks/h/link.txt"
    elif where == "dir":
        (folder / "linkdir").symlink_to(tmp_path / "outside")
        name = "hooks/h/linkdir"
    elif where == "nested":
        (folder / "a" / "b").mkdir(parents=True)
        (folder / "a" / "b" / "l").symlink_to(folder / "hook.py")
        name = "hooks/h/a/b/l"
    else:
        (folder / "gone").symlink_to(tmp_path / "nowhere")
        name = "hooks/h/gone"
    with pytest.raises(ConfigError) as info:
        load(tmp_path, ["agent/h"])
    assert str(info.value).endswith(f"symbolic links are not allowed: {name}")


def test_the_folder_itself_as_a_symlink_is_rejected(tmp_path):
    real = write_hook(tmp_path / "elsewhere", "h", "pass")
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "h").symlink_to(real)
    with pytest.raises(ConfigError, match="symbolic links are not allowed: hooks/h$"):
        load(tmp_path, ["agent/h"])


def test_a_fifo_is_rejected(tmp_path):
    folder = write_hook(tmp_path, "h", "pass")
    os.mkfifo(folder / "pipe")
    with pytest.raises(ConfigError, match="not a regular file: hooks/h/pipe"):
        load(tmp_path, ["agent/h"])


async def test_snapshot_runs_the_loaded_bytes_after_an_edit(tmp_path):
    folder = write_hook(tmp_path, "h", "print(json.dumps({'message': 'old'}))", events=["Stop"])
    hookset = load(tmp_path, ["agent/h"])
    try:
        (folder / "hook.py").write_text(f"#!{sys.executable}\nprint('{{\"message\": \"new\"}}')\n")
        first = await run_hook(hookset.get("agent/h"), PAYLOAD, gate=False, cwd=str(tmp_path))
        second = await run_hook(hookset.get("agent/h"), PAYLOAD, gate=False, cwd=str(tmp_path))
        assert (first.message, second.message) == ("old", "old")
    finally:
        hookset.close()
    fresh = load(tmp_path, ["agent/h"])
    try:
        result = await run_hook(fresh.get("agent/h"), PAYLOAD, gate=False, cwd=str(tmp_path))
        assert result.message == "new"
    finally:
        fresh.close()


async def test_deleting_the_folder_after_load_does_not_matter(tmp_path):
    import shutil
    folder = write_hook(tmp_path, "h", "print(json.dumps({'message': 'still here'}))", events=["Stop"])
    hookset = load(tmp_path, ["agent/h"])
    shutil.rmtree(folder)
    try:
        result = await run_hook(hookset.get("agent/h"), PAYLOAD, gate=False, cwd=str(tmp_path))
        assert result.message == "still here"
    finally:
        hookset.close()


async def test_materialised_once_modes_kept_and_removed_on_close(tmp_path):
    folder = write_hook(tmp_path, "h", "print(json.dumps({'message': os.path.dirname(os.path.abspath(__file__))}))",
                        events=["Stop"])
    (folder / "data.txt").write_text("d")
    (folder / "data.txt").chmod(0o640)
    hookset = load(tmp_path, ["agent/h"])
    hook = hookset.get("agent/h")
    first = await run_hook(hook, PAYLOAD, gate=False, cwd=str(tmp_path))
    second = await run_hook(hook, PAYLOAD, gate=False, cwd=str(tmp_path))
    workdir = first.message
    assert workdir == second.message and workdir != str(folder)
    assert os.path.basename(workdir) == "h"
    assert os.stat(os.path.join(workdir, "hook.py")).st_mode & 0o777 == 0o755
    assert os.stat(os.path.join(workdir, "data.txt")).st_mode & 0o777 == 0o640
    hookset.close()
    assert not os.path.exists(workdir)


# ---------------------------------------------------------------- resolution

def test_local_hooks_live_under_xdg_config_home(tmp_path, isolated_home):
    config_home = isolated_home / "config"
    write_hook(config_home / "raw", "mine", "pass")
    hookset = load(tmp_path, ["local/mine"])
    assert hookset.get("local/mine").folder == config_home / "raw" / "hooks" / "mine"
    hookset.close()


def test_pkg_hooks_come_from_an_installed_distribution(tmp_path, monkeypatch):
    site = tmp_path / "site"
    package = site / "acme_raw"
    write_hook(package, "stamp", "pass")
    (package / "__init__.py").write_text("raise RuntimeError('never imported')\n")
    (package / "tools").mkdir()
    dist = site / "acme_raw-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-raw\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[raw_tui.packages]\nacme = acme_raw\n")
    monkeypatch.syspath_prepend(str(site))
    hookset = load(tmp_path, ["pkg/acme/hooks/stamp"])
    assert hookset.get("pkg/acme/hooks/stamp").folder == package / "hooks" / "stamp"
    hookset.close()
    with pytest.raises(ConfigError, match="no installed package declares \"nope\""):
        load(tmp_path, ["pkg/nope/hooks/stamp"])
    with pytest.raises(ConfigError, match="folder not found"):
        load(tmp_path, ["pkg/acme/hooks/missing"])

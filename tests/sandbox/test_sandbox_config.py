"""`agents.<name>.sandbox`: strict settings, honest availability in `config list` (text and
--json), and an explicit mode that cannot run failing closed (`sandbox_unavailable`)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.config_kit import raw_tui
from tests.sandbox.sandbox_kit import call, config, needs_sandbox, text_of


def no_bwrap_path(tmp_path: Path) -> str:
    """A PATH with bash and the usual tools, without bubblewrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sh", "env", "cat", "echo", "ls", "unshare", "true"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


@pytest.mark.parametrize("sandbox,path,detail", [
    ({"mode": "box"}, "agents.main.sandbox.mode", "box"),
    ({"nework": True}, "agents.main.sandbox", "nework"),
    ({"network": "yes"}, "agents.main.sandbox.network", "Expected `bool`"),
    ({"writable": ["relative/path"]}, "agents.main.sandbox.writable[0]", "absolute"),
    ({"env_keep": ["A=B"]}, "agents.main.sandbox.env_keep[0]", "variable name"),
    ({"max_bytes": 0}, "agents.main.sandbox.max_bytes", "positive"),
])
def test_bad_settings_name_their_json_path(tmp_path, sandbox, path, detail):
    cfg = config(tmp_path / "cfg", sandbox=sandbox)
    proc = raw_tui("--config", str(cfg), "config", "list")
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert path in line and detail in line, line
    assert len(proc.stderr.strip().splitlines()) == 1


def test_an_observed_rule_needs_the_overlay_mode(tmp_path):
    rules = [{"match": "builtin/bash", "effect": "deny",
              "when": {"source": "observed", "any": "files[*].path", "regex": "x"}}]
    cfg = config(tmp_path / "cfg", sandbox={"mode": "workspace"}, rules=rules)
    proc = raw_tui("--config", str(cfg), "config", "list")
    assert proc.returncode == 2
    assert "agents.main.tools.rules[0].when.source" in proc.stderr
    assert "overlay" in proc.stderr


def test_an_observed_rule_on_another_tool_is_refused(tmp_path):
    rules = [{"match": "builtin/read_file", "effect": "ask",
              "when": {"source": "observed", "any": "files[*].path", "regex": "x"}}]
    cfg = config(tmp_path / "cfg", rules=rules, tools=["builtin/bash", "builtin/read_file"])
    proc = raw_tui("--config", str(cfg), "config", "list")
    assert proc.returncode == 2 and "builtin/bash only" in proc.stderr, proc.stderr


def test_config_list_says_the_sandbox_runs(tmp_path, needs_sandbox):
    cfg = config(tmp_path / "cfg")
    proc = raw_tui("--config", str(cfg), "config", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    box = json.loads(proc.stdout)["agents"]["main"]["sandbox"]
    assert (box["mode"], box["available"]) == ("overlay", True) and "reason" not in box
    text = raw_tui("--config", str(cfg), "config", "list").stdout
    assert "  sandbox: overlay · net off" in text


def test_without_bubblewrap_bash_runs_off_and_config_list_says_why(tmp_path):
    cfg = config(tmp_path / "cfg")
    env = {"PATH": no_bwrap_path(tmp_path)}
    proc = raw_tui("--config", str(cfg), "config", "list", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    box = json.loads(proc.stdout)["agents"]["main"]["sandbox"]
    assert box["mode"] == "off" and box["available"] is False
    assert box["reason"] == "bubblewrap is not installed" and "apt-get install" in box["fix"]
    assert "agents.main: sandbox off: bubblewrap is not installed" in proc.stderr
    text = raw_tui("--config", str(cfg), "config", "list", env=env).stdout
    assert "sandbox off: bubblewrap is not installed" in text
    ws = tmp_path / "ws"
    ws.mkdir()
    rc, report = call(cfg, ws, "echo hi > f", env=env)
    assert rc == 0 and (ws / "f").read_text() == "hi\n"  # as before: mode off


def test_an_explicit_mode_that_cannot_run_fails_closed(tmp_path):
    cfg = config(tmp_path / "cfg", sandbox={"mode": "overlay"})
    env = {"PATH": no_bwrap_path(tmp_path)}
    proc = raw_tui("--config", str(cfg), "config", "list", "--json", env=env)
    assert proc.returncode == 0  # the config is valid; its calls fail closed
    assert "agents.main.sandbox.mode: 'overlay' cannot run here" in proc.stderr
    box = json.loads(proc.stdout)["agents"]["main"]["sandbox"]
    assert (box["mode"], box["available"]) == ("overlay", False)
    ws = tmp_path / "ws"
    ws.mkdir()
    rc, report = call(cfg, ws, "echo hi > f", env=env)
    assert rc == 1 and report["code"] == "sandbox_unavailable", report
    assert "bubblewrap is not installed" in report["message"]
    assert not (ws / "f").exists()


def test_mode_off_runs_as_before(tmp_path, needs_sandbox):
    cfg = config(tmp_path / "cfg", sandbox={"mode": "off"})
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside.txt"
    rc, report = call(cfg, ws, f"echo hi > {outside}")
    assert rc == 0 and outside.read_text() == "hi\n"
    assert "observed" not in report
    text = raw_tui("--config", str(cfg), "config", "list").stdout
    assert "sandbox off: mode off" in text

"""`raw-tui config list` and `raw-tui call` driven as a user would: a real subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.config_kit import raw_tui, write_config  # noqa: E402
from tests.engine.misbehaving_tools import RULES, write_all  # noqa: E402


@pytest.fixture
def cfg(tmp_path):
    cfg = tmp_path / "cfg"
    use = write_all(cfg) + ["builtin/write_file", "builtin/bash", "builtin/read_file"]
    rules = RULES + [{"match": "builtin/write_file", "effect": "ask", "when": {
        "source": "effects", "any": "files[*].path", "regex": "protected"}}]
    write_config(cfg, {"tools": {"use": use, "rules": rules}})
    return cfg


def call(cfg, tool, args, *extra):
    proc = raw_tui("--config", str(cfg / "raw.json"), "--cwd", str(cfg.parent), "call", tool,
                   "--args", json.dumps(args), *extra)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("tool,args,stage,code", [
    ("nope", {}, "exposure", "tool_not_exposed"),
    ("agent/denied", {"text": "a"}, "exposure", "tool_denied"),
    ("noop", {"text": 1}, "validation", "invalid_arguments"),
    ("fx_async", {"text": "a"}, "effects", "invalid_effects"),
    ("fx_raise", {"text": "a"}, "effects", "effects_error"),
    ("noop", {"text": "secret"}, "approval", "approval_required"),
])
def test_call_reports_the_step_that_stopped(cfg, tool, args, stage, code):
    rc, report = call(cfg, tool, args)
    assert rc == 1
    assert (report["outcome"], report["stage"], report["code"]) == ("stopped", stage, code)
    assert report["message"] and report["result"] is None


def test_call_reports_a_tool_error_as_ran_and_exits_1(cfg):
    rc, report = call(cfg, "crash", {"text": "a"})
    assert rc == 1
    assert (report["outcome"], report["stage"], report["code"]) == ("ran", "handler", "tool_error")
    assert report["message"] == "crash failed: boom"
    assert report["result"]["isError"] is True


def test_call_runs_and_reports_effects_and_rule(cfg, tmp_path):
    target = tmp_path / "protected" / "a.txt"
    rc, report = call(cfg, "write_file", {"operations": [
        {"mode": "overwrite", "path": str(target), "content": "hi\n"}]}, "--approve", "yes")
    assert rc == 0, report
    assert report["outcome"] == "ran" and report["rule"] == "ask"
    assert report["approval_requested"] is True
    assert report["effects"] == {"files": [{"path": str(target), "operation": "write"}]}
    assert target.read_text() == "hi\n"


def test_call_approve_no_writes_nothing(cfg, tmp_path):
    target = tmp_path / "protected" / "b.txt"
    rc, report = call(cfg, "write_file", {"operations": [
        {"mode": "overwrite", "path": str(target), "content": "hi\n"}]}, "--approve", "no")
    assert rc == 1 and report["code"] == "approval_denied"
    assert report["message"] == "approval denied for write_file"
    assert not target.exists()


def test_call_dry_run_would_run(cfg, tmp_path):
    target = tmp_path / "c.txt"
    rc, report = call(cfg, "write_file", {"operations": [
        {"mode": "overwrite", "path": str(target), "content": "x"}]}, "--dry-run")
    assert rc == 0 and report["outcome"] == "would_run" and report["rule"] == "allow"
    assert report["result"] is None and not target.exists()


def test_config_list_json(cfg):
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    listing = json.loads(proc.stdout)
    tools = {t["identity"]: t for t in listing["agents"]["main"]["tools"]}
    assert tools["agent/denied"]["exposed"] is False and tools["agent/noop"]["exposed"] is True
    assert listing["agents"]["main"]["rules"][0]["effect"] == "deny"


def test_config_list_text(cfg):
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    assert proc.returncode == 0, proc.stderr
    assert "tool agent/denied as denied 1.0.0  (denied: hidden from the model)" in proc.stdout


def test_config_list_never_prints_a_secret(tmp_path):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/read_file"]}}, models={
        "m": {"method": "openai-chat-completions", "model_id": "x", "api_key": "sk-SECRET"}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "sk-SECRET" not in proc.stdout + proc.stderr


BAD_CONFIGS = [
    ('{"models": {}, "agents": {}, "models": {}}', "(root): duplicate key 'models'"),
    ('{"models": {}, "agents": {},}', "invalid JSON at line 1"),
    ('// hi\n{"models": {}, "agents": {}}', "invalid JSON at line 1"),
    ('{"models": {}, "agents": {}, "bogus": 1}', "(root): unknown field `bogus`"),
    ('{"models": {"m": {"method": "scripted", "script": "s", "x": 1}}, "agents": {}}',
     "models.m: unknown field `x`"),
    ('{"models": {"m": {"method": "nope"}}, "agents": {}}', "models.m.method:"),
    ('{"models": {}, "agents": {"a": {"model": "zz", "tools": {"use": []}}}}',
     "agents.a.model: unknown model alias 'zz'"),
    ('{"models": {"m": {"method": "scripted", "script": "s"}}, "agents": {"a": {"model": "m",'
     ' "tools": {"use": ["builtin/nope"]}}}}', "agents.a.tools.use[0]: tool builtin/nope not found"),
    ('{"models": {"m": {"method": "scripted", "script": "s"}}, "agents": {"a": {"model": "m",'
     ' "tools": {"use": ["builtin/bash"], "rules": [{"match": "*", "effect": "deny", "when":'
     ' {"source": "arguments", "any": "commands[*].command", "regex": "rm"}}]}}}}',
     "agents.a.tools.rules[0].when: only allowed with effect \"ask\""),
    ('{"models": {"m": {"method": "scripted", "script": "s"}}, "agents": {"a": {"model": "m",'
     ' "tools": {"use": ["builtin/bash"], "rules": [{"match": "*", "effect": "ask", "when":'
     ' {"source": "arguments", "any": "commands[*].nope", "regex": "rm"}}]}}}}',
     'agents.a.tools.rules[0].when.any: "commands[*].nope" does not reach a string field of '
     'builtin/bash'),
    ('{"models": {"m": {"method": "scripted", "script": "s"}}, "agents": {"a": {"model": "m",'
     ' "tools": {"use": ["builtin/bash"], "rules": [{"match": "*", "effect": "ask", "when":'
     ' {"source": "arguments", "any": "commands[*].command", "regex": "(?=rm)"}}]}}}}',
     "agents.a.tools.rules[0].when.regex: not a valid RE2 pattern"),
    ('{"models": {"m": {"method": "scripted", "script": "s"}}, "agents": {"a": {"model": "m",'
     ' "tools": {"use": ["builtin/bash"], "rules": [{"match": "*", "effect": "ask", "when":'
     ' {"source": "effects", "any": "files[*].path", "regex": "x"}}]}}}}',
     'is not a condition source of builtin/bash'),
    ('{"models": {}, "agents": {}, "default_agent": "\\udcff"}',
     "default_agent: not valid Unicode (lone surrogate)"),
    ('{"models": {"\\ud800": {}}, "agents": {}}', "models.\\ud800: not valid Unicode"),
]


@pytest.mark.parametrize("text,expected", BAD_CONFIGS)
def test_bad_config_names_file_and_path_and_exits_2(tmp_path, text, expected):
    path = tmp_path / "raw.json"
    path.write_text(text)
    proc = raw_tui("--config", str(path), "config", "list")
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"raw-tui: config error: {path}: ")
    assert expected in lines[0]


def test_no_config_uses_the_demo(tmp_path):
    proc = raw_tui("config", "list", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["config"] == "(built-in demo)"


def test_config_lookup_order(tmp_path, isolated_home):
    xdg = isolated_home / "config" / "raw"
    write_config(xdg, {"tools": {"use": ["builtin/read_file"]}})
    (xdg / "config.json").write_text((xdg / "raw.json").read_text())
    proc = raw_tui("config", "list", "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["config"] == str(xdg / "config.json")
    write_config(tmp_path, {"tools": {"use": ["builtin/bash"]}})
    proc = raw_tui("config", "list", "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["config"] == str(tmp_path / "raw.json")


def test_call_args_not_json_exits_2(cfg):
    proc = raw_tui("--config", str(cfg / "raw.json"), "call", "noop", "--args", "{bad")
    assert proc.returncode == 2 and "--args is not JSON" in proc.stderr


@pytest.mark.parametrize("text,detail", [
    ('{"text": "a", "text": "secret"}', "duplicate key 'text'"),
    ('{"text": NaN}', "NaN is not JSON"),
    ('{"text": "\\ud800"}', "lone surrogate"),
])
def test_call_args_are_strict_json(cfg, text, detail):
    proc = raw_tui("--config", str(cfg / "raw.json"), "call", "noop", "--args", text)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("raw-tui: --args is not JSON: ") and detail in proc.stderr


def test_an_unknown_panel_icon_falls_back_with_one_warning(tmp_path):
    from tests.config_kit import write_tool

    cfg = tmp_path / "cfg"
    write_tool(cfg, "paneled", "def handler(args, ctx):\n    return 'ok'\n",
               panels=[{"id": "p", "title": "P", "icon": "unicorn"}])
    write_config(cfg, {"tools": {"use": ["agent/paneled"]}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "panels[0].icon: unknown icon 'unicorn'; using 'panel'" in warnings[0]


def test_call_result_carries_is_error_false(cfg, tmp_path):
    target = tmp_path / "ok.txt"
    rc, report = call(cfg, "write_file", {"operations": [
        {"mode": "overwrite", "path": str(target), "content": "x"}]})
    assert rc == 0 and report["outcome"] == "ran", report
    assert report["result"]["isError"] is False


@pytest.mark.parametrize("tool,args,rule,index", [
    ("agent/denied", {"text": "a"}, "deny", 0),
    ("noop", {"text": "secret"}, "ask", 1),
    ("noop", {"text": "plain"}, "allow", None),
])
def test_call_names_the_deciding_rule(cfg, tool, args, rule, index):
    _, report = call(cfg, tool, args, "--dry-run")
    assert (report["rule"], report["rule_index"]) == (rule, index), report


def warnings_of(proc) -> list[str]:
    return [line.removeprefix("raw-tui: warning: ") for line in proc.stderr.splitlines()
            if line.startswith("raw-tui: warning: ")]


def test_config_list_warns_about_a_rule_that_never_decides(tmp_path):
    cfg = tmp_path / "cfg"
    bash_when = {"source": "arguments", "any": "commands[*].command", "regex": "rm"}
    rules = [
        {"match": "builtin/bash", "effect": "ask", "when": bash_when},  # 0: never decides
        {"match": "builtin/write_file", "effect": "ask"},  # decides: nothing later covers it
        {"match": "builtin/read_*", "effect": "deny"},  # 2: never decides
        {"match": "builtin/bash", "effect": "ask", "when": bash_when},  # 3: never decides
        # (and being conditional, it does not make rule 0 dead)
        {"match": "builtin/*a*", "effect": "allow"},  # 4: bash and read_file, not write_file
    ]
    write_config(cfg, {"tools": {"use": ["builtin/bash", "builtin/write_file",
                                         "builtin/read_file"], "rules": rules}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list")
    assert proc.returncode == 0, proc.stderr
    assert warnings_of(proc) == [
        f"agents.main.tools.rules[{i}]: never decides: rules[4] (builtin/*a*) matches every "
        f"tool it matches" for i in (0, 2, 3)]
    listing = json.loads(raw_tui("--config", str(cfg / "raw.json"), "config", "list",
                                 "--json").stdout)
    assert listing["warnings"] == warnings_of(proc)


def test_config_list_warns_about_an_unknown_keymap_binding(tmp_path):
    cfg = tmp_path / "cfg"
    write_config(cfg, {"tools": {"use": ["builtin/read_file"]}},
                 extra={"ui": {"keymap": {"raw.toggle_sidebar": "f3", "raw.quitt": "ctrl+x"}}})
    proc = raw_tui("--config", str(cfg / "raw.json"), "config", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    assert warnings_of(proc) == ['ui.keymap["raw.quitt"]: no such binding id']
    assert json.loads(proc.stdout)["warnings"] == warnings_of(proc)

"""The three base tools' tool.json: loadable, short, and the write effects schema of the
contract; and one pass through the real dispatcher for each."""

from __future__ import annotations

import json

from builtin_kit import tool_spec

from raw_tui.protocol import bus as ev
from raw_tui.config import load_config
from raw_tui.tools.dispatch import Dispatcher

NAMES = ("read_file", "write_file", "bash")

# Every token of the definitions is paid on every request: keep them from growing.
MAX_DEFINITION_CHARS = 560  # descriptions + compact input schemas of the three (now 553)


def test_manifests_load_with_their_modules():
    for name in NAMES:
        spec = tool_spec(name)
        assert spec.manifest.id == name == spec.name
        assert spec.manifest.version == "1.0.0"
        assert spec.input_schema["type"] == "object"
        assert spec.has_validate_args  # it checks the strict schema (raw_tui/tools/strict.py)
        mod = spec.module()
        assert callable(mod.handler)


def test_definitions_stay_short():
    total = 0
    for name in NAMES:
        spec = tool_spec(name)
        assert spec.description.count(". ") == 0, "one short sentence"
        assert "description" not in json.dumps(spec.input_schema)
        total += len(spec.description) + len(json.dumps(spec.input_schema,
                                                        separators=(",", ":")))
        assert "title" not in json.dumps(spec.input_schema)
    assert total <= MAX_DEFINITION_CHARS


def test_write_file_declares_effects_as_the_contract_says():
    spec = tool_spec("write_file")
    assert spec.condition_sources == ["effects"]
    assert spec.effects_schema == {
        "type": "object",
        "properties": {"files": {
            "type": "array", "maxItems": 128,
            "items": {"type": "object",
                      "properties": {"path": {"type": "string"},
                                     "operation": {"type": "string", "enum": [
                                         "write", "delete", "rename_source",
                                         "rename_destination"]}},
                      "required": ["path", "operation"], "additionalProperties": False}}},
        "required": ["files"], "additionalProperties": False}
    assert tool_spec("read_file").effects_schema is None
    assert tool_spec("bash").effects_schema is None


def agent_for(tmp_path, rules):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "script.jsonl").write_text("")
    (cfg / "raw.json").write_text(json.dumps({
        "default_agent": "main",
        "models": {"m": {"method": "scripted", "script": "script.jsonl"}},
        "agents": {"main": {"model": "m", "tools": {
            "use": [f"builtin/{n}" for n in NAMES], "rules": rules}}},
    }))
    return load_config(str(cfg / "raw.json"), cwd=tmp_path).agent()


async def dispatch(agent, tmp_path, name, args):
    d = Dispatcher(agent, bus=ev.Bus(), cwd=str(tmp_path))
    return await d.dispatch(name, args, call_id="c1")


async def test_an_effects_rule_covers_both_write_forms(tmp_path):
    agent = agent_for(tmp_path, [{"match": "builtin/write_file", "effect": "ask", "when": {
        "source": "effects", "any": "files[*].path", "regex": "/protected/"}}])
    ops = {"operations": [{"mode": "overwrite", "path": "protected/a.txt", "content": "x"}]}
    moved = {"patch": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: protected/b.txt\n"
                      "@@\n-x\n+y\n*** End Patch"}
    for args in (ops, moved):
        report = await dispatch(agent, tmp_path, "write_file", args)
        assert report.code == "approval_required", report.message
    report = await dispatch(agent, tmp_path, "write_file", {"operations": [
        {"mode": "overwrite", "path": "free/a.txt", "content": "x"}]})
    assert report.outcome == "ran" and not report.result.isError
    assert (tmp_path / "free/a.txt").read_text() == "x"
    assert report.effects == {"files": [{"path": f"{tmp_path}/free/a.txt",
                                         "operation": "write"}]}


async def test_codes_through_dispatch(tmp_path):
    agent = agent_for(tmp_path, [])
    report = await dispatch(agent, tmp_path, "write_file", {
        "patch": "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: ./a\n*** End Patch"})
    assert report.code == "invalid_arguments"
    assert report.message.startswith("invalid arguments: patch: patch_repeated_target: ")
    report = await dispatch(agent, tmp_path, "read_file", {"path": "missing.txt"})
    assert report.code == "tool_error"
    assert report.message == f"read_file failed: no such file: {tmp_path}/missing.txt"
    report = await dispatch(agent, tmp_path, "bash", {"commands": [{"command": "echo hi"}]})
    assert report.result.text() == "$ echo hi\nhi\nexit 0"
    report = await dispatch(agent, tmp_path, "bash", {"commands": [{"command": "exit 4"}]})
    assert report.code == "tool_error" and report.result.text().endswith("exit 4")

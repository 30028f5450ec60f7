"""tool.json (docs/gate.md) and its schemas: every rule, each error naming file and path."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import pytest

from raw_tui.contract.schema import build_validator, first_error
from raw_tui.protocol.errors import ConfigError
from raw_tui.tools.registry import load_tool

HANDLER = "def handler(args, ctx):\n    return 'ok'\n"
DESCRIBE = "def describe_effects(args, ctx):\n    return {}\n"
OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}


def folder_with(tmp_path: Path, manifest: dict | str, code: str = HANDLER,
                name: str = "tool_a") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    base = {"api_version": 2, "id": name, "version": "1.0.0", "name": name,
            "description": "A tool.", "input_schema": OBJECT, "entry": "./tool.py"}
    if isinstance(manifest, dict):
        base.update(manifest)
        text = json.dumps({k: v for k, v in base.items() if v is not None})
    else:
        text = manifest
    (folder / "tool.json").write_text(text)
    (folder / "tool.py").write_text(textwrap.dedent(code))
    return folder


def load_error(folder: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_tool(f"agent/{folder.name}", folder)
    assert info.value.file == str(folder / "tool.json")
    return info.value


def test_a_good_manifest_loads(tmp_path):
    spec = load_tool("agent/tool_a", folder_with(tmp_path, {}))
    assert spec.name == "tool_a" and spec.condition_sources == ["arguments"]
    assert not spec.has_effects and not spec.has_validate_args


@pytest.mark.parametrize("change,path,detail", [
    ({"bogus": 1}, "(root)", "unknown field `bogus`"),
    ({"api_version": 1}, "api_version", "must be 2"),
    ({"api_version": True}, "api_version", "Expected `int`"),
    ({"id": "other"}, "id", "must equal the folder name"),
    ({"id": "Tool"}, "id", "must match"),
    ({"version": "1.0"}, "version", "major.minor.patch"),
    ({"version": "01.0.0"}, "version", "major.minor.patch"),
    ({"name": "has space"}, "name", "must match"),
    ({"name": "x" * 65}, "name", "must match"),
    ({"name": "9lives"}, "name", "must match"),
    ({"entry": "tool.py"}, "entry", '"./" path'),
    ({"entry": "./tool.js"}, "entry", '"./" path'),
    ({"entry": "./../outside.py"}, "entry", "inside the tool folder"),
    ({"entry": "./missing.py"}, "entry", "does not exist"),
    ({"entry": "./" + "A" * 300 + ".py"}, "entry", "File name too long"),  # found by fuzzing
    ({"entry": "./a\x00.py"}, "entry", "cannot be a file"),
    ({"panels": [{}] * 5}, "panels", "at most 4 panels"),
    ({"condition_sources": ["result"]}, "condition_sources[0]", '"arguments" or "effects"'),
    ({"condition_sources": ["arguments", "arguments"]}, "condition_sources", "duplicate"),
    ({"condition_sources": ["effects"]}, "condition_sources", "needs effects_schema"),
    ({"effects_schema": {"type": "object"}}, "effects_schema", "does not define describe_effects"),
    ({"input_schema": {"type": "array"}}, "input_schema.type", 'must have type "object"'),
    ({"input_schema": {"type": "object", "properties": {"a": {"type": 5}}}},
     "input_schema.properties.a.type", "invalid schema"),
    ({"input_schema": {"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}},
     "input_schema.properties.a.$ref", "only local $ref"),
    ({"input_schema": {"type": "object", "properties": {"a": {"type": "string",
                                                              "pattern": "(?=x)"}}}},
     "input_schema.properties.a.pattern", "RE2 cannot compile"),
])
def test_each_rule_names_its_path(tmp_path, change, path, detail):
    err = load_error(folder_with(tmp_path, change))
    assert err.path == path, str(err)
    assert detail in err.detail, str(err)


def test_describe_effects_needs_effects_schema(tmp_path):
    err = load_error(folder_with(tmp_path, {}, code=HANDLER + DESCRIBE))
    assert err.path == "effects_schema" and "required" in err.detail


def test_entry_without_handler(tmp_path):
    err = load_error(folder_with(tmp_path, {}, code="def other(args, ctx):\n    pass\n"))
    assert err.path == "entry" and "handler" in err.detail


@pytest.mark.parametrize("text,detail", [
    ('{"api_version": 2, "api_version": 2}', "duplicate key"),
    ('{"api_version": 2,}', "invalid JSON"),
    ('{"api_version": NaN}', "invalid JSON"),
    ('{"api_version": 2} // c', "invalid JSON"),
])
def test_strict_json(tmp_path, text, detail):
    assert detail in load_error(folder_with(tmp_path, text)).detail


def test_a_lone_surrogate_in_tool_json_is_a_config_error(tmp_path):
    err = load_error(folder_with(tmp_path, '{"api_version": 2, "id": "\\ud800"}'))
    assert err.path == "id" and "lone surrogate" in err.detail


def test_validate_args_found_in_a_top_level_try(tmp_path):
    code = HANDLER + textwrap.dedent("""
        try:
            from fast_checks import validate_args
        except ImportError:
            def validate_args(args):
                return None
    """)
    assert load_tool("agent/tool_a", folder_with(tmp_path, {}, code=code)).has_validate_args


# ---- schemas ------------------------------------------------------------------------------

@pytest.mark.parametrize("schema,path", [
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/nope"}}},
     "input_schema.properties.a.$ref"),
    ({"type": "object", "properties": {"a": {"$ref": "#nope"}}},
     "input_schema.properties.a.$ref"),
    ({"type": "object", "properties": {"a": {"$dynamicRef": "http://example.com/s"}}},
     "input_schema.properties.a.$dynamicRef"),
])
def test_a_ref_that_cannot_resolve_is_a_config_error_not_a_crash_later(schema, path):
    with pytest.raises(ConfigError) as info:
        build_validator(schema, where=["input_schema"], file="tool.json")
    assert info.value.path == path


def test_local_refs_and_anchors_that_resolve_load():
    schema = {"type": "object", "$defs": {"s": {"$anchor": "str", "type": "string"}},
              "properties": {"a": {"$ref": "#/$defs/s"}, "b": {"$ref": "#str"}}}
    validator = build_validator(schema, where=["input_schema"], file="tool.json")
    assert first_error(validator, {"a": 1}) == "$.a: 1 is not of type 'string'"


def test_pattern_properties_with_additional_properties_use_re2():
    # jsonschema looks patternProperties up with stdlib `re` for additionalProperties:
    # a ReDoS a model could trigger with one key.
    schema = {"type": "object", "patternProperties": {"^(a+)+$": {}},
              "additionalProperties": False}
    validator = build_validator(schema, where=["input_schema"], file="tool.json")
    start = time.perf_counter()
    assert first_error(validator, {"a" * 40 + "!": 1}) is not None
    assert time.perf_counter() - start < 1.0


def test_a_key_cannot_slip_between_pattern_properties_and_additional_properties():
    # `$` before a trailing newline: stdlib re matches, RE2 does not. The key must be judged
    # by one engine, so it is either checked by the pattern's schema or refused.
    schema = {"type": "object", "patternProperties": {"^a$": {"type": "integer"}},
              "additionalProperties": False}
    validator = build_validator(schema, where=["input_schema"], file="tool.json")
    assert first_error(validator, {"a\n": "not an integer"}) is not None
    assert first_error(validator, {"a": 1}) is None


def test_unevaluated_properties_use_re2_too():
    schema = {"type": "object", "patternProperties": {"^(a+)+$": {}},
              "unevaluatedProperties": False}
    validator = build_validator(schema, where=["input_schema"], file="tool.json")
    start = time.perf_counter()
    assert first_error(validator, {"a" * 40 + "!": 1}) is not None
    assert time.perf_counter() - start < 1.0


def test_a_root_id_does_not_turn_the_ref_check_off():
    schema = {"$id": "urn:tool", "type": "object", "properties": {"a": {"$ref": "#/$defs/no"}}}
    with pytest.raises(ConfigError):
        build_validator(schema, where=["input_schema"], file="tool.json")


def test_a_ref_the_loader_cannot_judge_fails_the_call_not_the_process():
    schema = {"type": "object", "properties": {"a": {"$id": "urn:inner", "$ref": "#/nope"}}}
    validator = build_validator(schema, where=["input_schema"], file="tool.json")
    assert "cannot be applied" in first_error(validator, {"a": 1})


def test_entry_names_are_remembered_but_never_stale(tmp_path, monkeypatch):
    # the names an entry defines are cached between runs (start-up time); a changed entry
    # is parsed again, and a broken cache is only a miss
    import os

    from raw_tui.contract import entry_names

    monkeypatch.setattr(entry_names, "_cache", None)
    folder = folder_with(tmp_path, {}, code=HANDLER)
    entry = folder / "tool.py"
    assert not load_tool("agent/tool_a", folder).has_validate_args
    cache_file = entry_names._cache_path()
    assert str(entry.resolve()) in cache_file.read_text()
    parsed = []
    monkeypatch.setattr("raw_tui.contract.tool_manifest._module_functions",
                        lambda path, file: parsed.append(path) or {"handler"})
    load_tool("agent/tool_a", folder)
    assert parsed == []  # served from the cache
    entry.write_text(HANDLER + "def validate_args(args):\n    return None\n")
    os.utime(entry, ns=(entry.stat().st_atime_ns, entry.stat().st_mtime_ns + 10**9))
    monkeypatch.undo()
    monkeypatch.setattr(entry_names, "_cache", None)
    assert load_tool("agent/tool_a", folder).has_validate_args
    cache_file.write_text("{not json")
    monkeypatch.setattr(entry_names, "_cache", None)
    assert load_tool("agent/tool_a", folder).has_validate_args


def test_an_entry_that_is_a_symlink_loop_is_a_config_error(tmp_path):
    folder = folder_with(tmp_path, {"entry": "./loop.py"})
    (folder / "loop.py").symlink_to("loop.py")
    err = load_error(folder)
    assert err.path == "entry" and "cannot be a file" in err.detail, str(err)

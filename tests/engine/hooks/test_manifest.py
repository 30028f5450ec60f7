"""hook.json validation (docs/hooks.md): every rule, with the file and JSON path named."""

from __future__ import annotations

import json

import pytest

from hook_kit import BASH, READ, Tool, load, write_hook
from raw_tui.protocol.errors import ConfigError

GOOD = {"protocol_version": 2, "name": "h", "events": [{"name": "PreToolUse"}],
        "command": "python3", "args": ["./hook.py"]}


def load_manifest(tmp_path, doc=None, *, raw: bytes | None = None, tools=None):
    folder = write_hook(tmp_path, "h", "pass", manifest=doc if doc is not None else GOOD)
    if raw is not None:
        (folder / "hook.json").write_bytes(raw)
    return load(tmp_path, ["agent/h"], tools)


def error_of(tmp_path, doc=None, **kwargs) -> str:
    with pytest.raises(ConfigError) as info:
        load_manifest(tmp_path, doc, **kwargs).close()
    return str(info.value)


def with_(**changes):
    doc = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    return doc


def test_good_manifest_loads_with_defaults(tmp_path):
    hookset = load_manifest(tmp_path)
    manifest = hookset.get("agent/h").manifest
    assert (manifest.name, manifest.command, manifest.args, manifest.timeout_ms) == (
        "h", "python3", ("./hook.py",), 5000)
    hookset.close()


@pytest.mark.parametrize("doc, expected", [
    (with_(protocol_version=1), "hooks/h/hook.json: protocol_version: must be 2"),
    (with_(protocol_version="2"), "hooks/h/hook.json: protocol_version: Expected `int`, got `str`"),
    (with_(protocol_version=None), 'hooks/h/hook.json: missing key "protocol_version"'),
    (with_(bogus=1), "hooks/h/hook.json: bogus: unknown key"),
    (with_(name="other"), 'hooks/h/hook.json: name: must equal the folder name "h"'),
    (with_(name="Bad"), "hooks/h/hook.json: name: must match"),
    (with_(events=[]), "hooks/h/hook.json: events: must hold 1 to 32"),
    (with_(events=[{"name": "Stop"}] * 33), "hooks/h/hook.json: events: must hold 1 to 32"),
    (with_(events=[{"name": "Stop"}, {"name": "BeforeLunch"}]), "hooks/h/hook.json: events[1].name: unknown event"),
    (with_(events=[{"name": "Stop", "match": "*"}]), "hooks/h/hook.json: events[0].match: match is allowed only on tool events"),
    (with_(events=[{"name": "UserPromptSubmit", "when": {"source": "arguments", "any": "x", "regex": "y"}}]),
     "hooks/h/hook.json: events[0].when: when is allowed only on tool events"),
    (with_(events=[{"name": "PreToolUse", "extra": 1}]), "hooks/h/hook.json: events[0].extra: unknown key"),
    (with_(events=[{"name": "PreToolUse", "match": ""}]), "hooks/h/hook.json: events[0].match: must not be empty"),
    (with_(events=[{"name": "PreToolUse", "when": {"source": "arguments", "any": "commands[*].command", "regex": "(?=rm)"}}]),
     "hooks/h/hook.json: events[0].when.regex: not a valid RE2 pattern"),
    (with_(events=[{"name": "PreToolUse", "when": {"source": "arguments", "any": "commands[*].command"}}]),
     'hooks/h/hook.json: events[0].when: missing key "regex"'),
    (with_(command="/usr/bin/python3"), "hooks/h/hook.json: command: must be a bare name on PATH or a ./path"),
    (with_(command="bin/python3"), "hooks/h/hook.json: command: must be a bare name on PATH or a ./path"),
    (with_(command="./../h/hook.py"), "hooks/h/hook.json: command: must stay inside the hook folder"),
    (with_(command="./../../x"), "hooks/h/hook.json: command: must stay inside the hook folder"),
    (with_(command="./missing.py"), "hooks/h/hook.json: command: no file ./missing.py"),
    (with_(command=""), "hooks/h/hook.json: command: must not be empty"),
    (with_(command=None), 'hooks/h/hook.json: missing key "command"'),
    (with_(args=["x"] * 65), "hooks/h/hook.json: args: at most 64"),
    (with_(args=["ok", 3]), "hooks/h/hook.json: args[1]: Expected `str`, got `int`"),
    (with_(args=["./../escape"]), "hooks/h/hook.json: args[0]: must stay inside the hook folder"),
    (with_(timeout_ms=0), "hooks/h/hook.json: timeout_ms: must be 1 to 30000"),
    (with_(timeout_ms=30001), "hooks/h/hook.json: timeout_ms: must be 1 to 30000"),
    (with_(timeout_ms=1.5), "hooks/h/hook.json: timeout_ms: Expected `int`, got `float`"),
    (with_(timeout_ms=True), "hooks/h/hook.json: timeout_ms: Expected `int`, got `bool`"),
])
def test_manifest_errors_name_file_and_path(tmp_path, doc, expected):
    assert error_of(tmp_path, doc).startswith(expected)


def test_limits_that_pass(tmp_path):
    doc = with_(events=[{"name": "Stop"}] * 32, args=["x"] * 64, timeout_ms=30000)
    load_manifest(tmp_path, doc).close()


def test_name_at_most_64_bytes(tmp_path):
    name = "a" * 65
    write_hook(tmp_path, name, "pass", manifest=with_(name=name))
    with pytest.raises(ConfigError, match="at most 64 bytes"):
        load(tmp_path, [f"agent/{name}"])


def test_duplicate_key_and_non_json(tmp_path):
    assert "duplicate key" in error_of(tmp_path, raw=b'{"name": "h", "name": "h"}')
    assert "invalid JSON" in error_of(tmp_path, raw=b'{"name": "h",}')
    assert "NaN is not JSON" in error_of(tmp_path, raw=b'{"timeout_ms": NaN}')
    assert error_of(tmp_path, raw=b'[]').endswith("must be a JSON object")


def test_dot_command_is_normalised_inside_the_folder(tmp_path):
    load_manifest(tmp_path, with_(command="./sub/../hook.py", args=[])).close()


def test_dot_command_must_be_executable(tmp_path):
    folder = write_hook(tmp_path, "h", "pass", manifest=with_(command="./hook.py", args=[]))
    (folder / "hook.py").chmod(0o644)
    with pytest.raises(ConfigError, match=r"command: \./hook\.py is not executable"):
        load(tmp_path, ["agent/h"])


def test_missing_hook_json_and_folder(tmp_path):
    folder = write_hook(tmp_path, "h", "pass")
    (folder / "hook.json").unlink()
    with pytest.raises(ConfigError, match=r"raw.json: agents.a.hooks.use\[0\]: hook agent/h: no hook.json"):
        load(tmp_path, ["agent/h"])
    with pytest.raises(ConfigError, match=r"raw.json: agents.a.hooks.use\[0\]: hook agent/nope: folder not found"):
        load(tmp_path, ["agent/nope"])


@pytest.mark.parametrize("bad", ["guard", "agent/", "agent/Bad", "agent/a/b", "pkg/x/tools/y", "other/x"])
def test_bad_hook_ids(tmp_path, bad):
    with pytest.raises(ConfigError, match=r"agents.a.hooks.use\[0\]: bad hook id"):
        load(tmp_path, [bad])


def test_duplicate_ids_in_hooks_use(tmp_path):
    write_hook(tmp_path, "h", "pass")
    with pytest.raises(ConfigError) as info:
        load(tmp_path, ["agent/h", "agent/h"])
    assert str(info.value) == "raw.json: agents.a.hooks.use[1]: duplicate hook id agent/h"


# ---------------------------------------------------------------- binding `when` to tools

def when(source="arguments", any="commands[*].command", regex="rm", match=None, event="PreToolUse"):
    sub = {"name": event, "when": {"source": source, "any": any, "regex": regex}}
    if match is not None:
        sub["match"] = match
    return with_(events=[sub])


def test_when_binds_to_every_tool_match_covers(tmp_path):
    load_manifest(tmp_path, when(match="builtin/bash")).close()
    tools = {t.identity: t for t in (BASH, READ)}
    message = error_of(tmp_path, when(), tools=tools)  # default match `*` covers read_file too
    assert message.startswith("hooks/h/hook.json: events[0].when.any: ")
    assert "builtin/read_file" in message


def test_when_source_must_be_a_condition_source(tmp_path):
    message = error_of(tmp_path, when(match="builtin/write_file", any="path"))
    assert message.startswith("hooks/h/hook.json: events[0].when.source: ")
    assert "builtin/write_file" in message


def test_when_path_must_reach_a_string(tmp_path):
    message = error_of(tmp_path, when(match="builtin/bash", any="commands"))
    assert message.startswith("hooks/h/hook.json: events[0].when.any: ")


def test_effects_predicate_binds_to_effects_schema(tmp_path):
    load_manifest(tmp_path, when(source="effects", any="files[*].path", match="builtin/write_file")).close()
    assert "events[0].when.any" in error_of(
        tmp_path, when(source="effects", any="files[*].nope", match="builtin/write_file"))


def test_gate_effects_predicate_on_tool_without_effects_is_not_a_config_error(tmp_path):
    load_manifest(tmp_path, when(source="effects", any="files[*].path", match="builtin/*")).close()


def test_post_effects_predicate_on_tool_without_effects_is_a_config_error(tmp_path):
    message = error_of(tmp_path, when(source="effects", any="files[*].path", match="builtin/bash",
                                      event="PostToolUse"))
    assert message.startswith("hooks/h/hook.json: events[0].when.source: ")


def test_binding_uses_the_tools_given(tmp_path):
    tools = {"mcp/x/y": Tool("mcp/x/y", input_schema={"type": "object", "properties": {"q": {"type": "string"}}})}
    load_manifest(tmp_path, when(any="q"), tools=tools).close()


def test_a_lone_surrogate_is_a_config_error_with_its_path(tmp_path):
    folder = tmp_path / "hooks" / "h"
    folder.mkdir(parents=True)
    (folder / "hook.json").write_text(
        '{"protocol_version": 2, "name": "h", "events": [{"name": "Stop"}],'
        ' "command": "python3", "args": ["\\udcff"]}')
    with pytest.raises(ConfigError) as info:
        load(tmp_path, ["agent/h"])
    assert info.value.path == "args[0]" and "lone surrogate" in info.value.detail

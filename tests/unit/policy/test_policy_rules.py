"""tools.rules: parsing, binding to tools, unconditional (step 1) and conditional (step 4)."""

import timeit
from dataclasses import dataclass, field

import pytest
from jsonschema.validators import validator_for

from raw_tui.protocol.errors import ConfigError
from raw_tui.frozen import freeze
from raw_tui.policy import Rule, RuleSet

WHERE = ["agents", "coder", "tools", "rules"]
BASE = "agents.coder.tools.rules"

BASH_INPUT = {
    "type": "object",
    "properties": {"command": {"type": "string"}, "timeout_ms": {"type": "integer"}},
    "required": ["command"],
}
WRITE_INPUT = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
}
WRITE_EFFECTS = {
    "type": "object",
    "properties": {"files": {"type": "array", "items": {"$ref": "#/$defs/file"}}},
    "$defs": {"file": {"type": "object", "properties": {"path": {"type": "string"}, "operation": {"type": "string"}}}},
}


@dataclass
class Tool:
    identity: str
    input_schema: dict
    condition_sources: tuple = ("arguments",)
    effects_schema: dict | None = None


TOOLS = {
    "builtin/bash": Tool("builtin/bash", BASH_INPUT),
    "builtin/write_file": Tool("builtin/write_file", WRITE_INPUT, ("arguments", "effects"), WRITE_EFFECTS),
    "builtin/read_file": Tool("builtin/read_file", WRITE_INPUT),
}


def parse(rules, file="raw.json"):
    return RuleSet.parse(rules, where=WHERE, file=file)


def parse_error(rules) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse(rules)
    return info.value


def bind_error(rules, tools=TOOLS) -> ConfigError:
    ruleset = parse(rules)
    with pytest.raises(ConfigError) as info:
        ruleset.bind(tools, where=WHERE, file="raw.json")
    return info.value


# ---- parsing ----------------------------------------------------------------------------


def test_parses_rules_in_order():
    rs = parse(
        [
            {"match": "*", "effect": "ask"},
            {"match": "builtin/read_file", "effect": "allow"},
            {"match": "builtin/bash", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "rm"}},
        ]
    )
    assert [r.index for r in rs.rules] == [0, 1, 2]
    assert all(isinstance(r, Rule) for r in rs.rules)
    assert rs.rules[0].match.pattern == "*"
    assert rs.rules[2].when.regex == "rm"
    assert rs.describe() == [
        {"index": 0, "match": "*", "effect": "ask"},
        {"index": 1, "match": "builtin/read_file", "effect": "allow"},
        {"index": 2, "match": "builtin/bash", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "rm"}},
    ]
    assert len(parse([])) == 0


@pytest.mark.parametrize(
    "rules, path, detail",
    [
        ({}, BASE, "must be an array"),
        ("deny", BASE, "must be an array"),
        (None, BASE, "must be an array"),
        (["x"], BASE + "[0]", "must be an object"),
        ([{"match": "*", "effect": "allow"}, 3], BASE + "[1]", "must be an object"),
        ([{"match": "*", "effect": "allow", "why": "x"}], BASE + "[0].why", "unknown key"),
        ([{"effect": "allow"}], BASE + "[0]", 'missing key "match"'),
        ([{"match": "*"}], BASE + "[0]", 'missing key "effect"'),
        ([{"match": "*", "effect": "block"}], BASE + "[0].effect", 'must be "allow", "ask" or "deny"'),
        ([{"match": "*", "effect": "Allow"}], BASE + "[0].effect", 'must be "allow", "ask" or "deny"'),
        ([{"match": "*", "effect": None}], BASE + "[0].effect", 'must be "allow", "ask" or "deny"'),
        ([{"match": "", "effect": "allow"}], BASE + "[0].match", "must not be empty"),
        ([{"match": 5, "effect": "allow"}], BASE + "[0].match", "must be a string"),
        ([{"match": "x" * 257, "effect": "allow"}], BASE + "[0].match", "256"),
        (
            [{"match": "*", "effect": "ask"}, {"match": "*", "effect": "allow", "when": {"source": "arguments", "any": "a", "regex": "x"}}],
            BASE + "[1].when",
            'only allowed with effect "ask"',
        ),
        (
            [{"match": "*", "effect": "deny", "when": {"source": "arguments", "any": "a", "regex": "x"}}],
            BASE + "[0].when",
            'only allowed with effect "ask"',
        ),
        (
            [{"match": "*", "effect": "ask", "when": {"source": "arguments", "any": "a", "regex": "(?=x)"}}],
            BASE + "[0].when.regex",
            "not a valid RE2 pattern",
        ),
        (
            [{"match": "*", "effect": "ask", "when": {"source": "arguments", "any": "a[0]", "regex": "x"}}],
            BASE + "[0].when.any",
            "bad segment",
        ),
    ],
)
def test_parse_errors_name_the_exact_path(rules, path, detail):
    err = parse_error(rules)
    assert err.path == path
    assert detail in err.detail
    assert err.file == "raw.json"


def test_when_with_allow_message_exactly():
    err = parse_error(
        [{"match": "*", "effect": "ask"}, {"match": "*", "effect": "allow", "when": {"source": "arguments", "any": "a", "regex": "x"}}]
    )
    assert str(err) == 'raw.json: agents.coder.tools.rules[1].when: only allowed with effect "ask"'


# ---- binding ----------------------------------------------------------------------------


def test_bind_accepts_reachable_paths():
    rs = parse(
        [
            {"match": "builtin/write_file", "effect": "ask", "when": {"source": "effects", "any": "files[*].path", "regex": "x"}},
            {"match": "builtin/*", "effect": "ask", "when": {"source": "arguments", "any": "path", "regex": "x"}},
        ]
    )
    # the second rule covers bash too, whose schema has no "path": checked only against covered tools
    with pytest.raises(ConfigError):
        rs.bind(TOOLS, where=WHERE, file="raw.json")
    only_files = {k: v for k, v in TOOLS.items() if k != "builtin/bash"}
    assert rs.bind(only_files, where=WHERE, file="raw.json") is rs


def test_unreachable_path_names_rule_and_tool():
    err = bind_error(
        [
            {"match": "*", "effect": "ask"},
            {"match": "builtin/read_file", "effect": "deny"},
            {"match": "builtin/write_file", "effect": "ask", "when": {"source": "effects", "any": "files[*].nope", "regex": "x"}},
        ]
    )
    assert str(err) == (
        'raw.json: agents.coder.tools.rules[2].when.any: "files[*].nope" does not reach a string field '
        "of builtin/write_file effects_schema"
    )


def test_every_covered_tool_is_checked():
    err = bind_error([{"match": "builtin/*", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "x"}}])
    assert err.path == BASE + "[0].when.any"
    assert "builtin/write_file input_schema" in err.detail or "builtin/read_file input_schema" in err.detail
    # a glob that covers only bash binds fine
    parse([{"match": "*/bash", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "x"}}]).bind(
        TOOLS, where=WHERE
    )


def test_non_string_field_does_not_bind():
    err = bind_error([{"match": "builtin/bash", "effect": "ask", "when": {"source": "arguments", "any": "timeout_ms", "regex": "1"}}])
    assert err.detail == '"timeout_ms" does not reach a string field of builtin/bash input_schema'


def test_source_not_in_condition_sources():
    err = bind_error([{"match": "builtin/bash", "effect": "ask", "when": {"source": "effects", "any": "command", "regex": "x"}}])
    assert err.path == BASE + "[0].when.source"
    assert "builtin/bash" in err.detail
    assert '"effects" is not a condition source' in err.detail
    assert str(err).startswith("raw.json: agents.coder.tools.rules[0].when.source: ")


def test_default_condition_sources_is_arguments():
    tools = {"local/x": Tool("local/x", BASH_INPUT)}
    parse([{"match": "*", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "x"}}]).bind(tools, where=WHERE)
    with pytest.raises(ConfigError):
        parse([{"match": "*", "effect": "ask", "when": {"source": "effects", "any": "command", "regex": "x"}}]).bind(tools, where=WHERE)


def test_an_empty_condition_sources_lets_no_predicate_inspect_the_tool():
    """The source must be one the tool declares: `[]` declares none (it is not the default)."""
    tools = {"local/x": Tool("local/x", BASH_INPUT, condition_sources=())}
    with pytest.raises(ConfigError) as info:
        parse([{"match": "*", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "x"}}]).bind(tools, where=WHERE)
    assert "condition_sources: []" in info.value.detail


def test_rule_covering_no_tool_binds():
    parse([{"match": "mcp/*", "effect": "ask", "when": {"source": "effects", "any": "zzz", "regex": "x"}}]).bind(TOOLS, where=WHERE)


# ---- evaluation -------------------------------------------------------------------------


def test_no_rule_means_allow():
    rs = parse([])
    assert rs.unconditional("builtin/bash") == ("allow", None)
    assert rs.conditional("builtin/bash", {"command": "ls"}, None) == ("allow", None)
    rs = parse([{"match": "local/*", "effect": "deny"}])
    assert rs.unconditional("builtin/bash") == ("allow", None)


def test_last_match_wins():
    rs = parse(
        [
            {"match": "*", "effect": "deny"},
            {"match": "builtin/*", "effect": "ask"},
            {"match": "builtin/read_file", "effect": "allow"},
        ]
    )
    assert rs.unconditional("builtin/read_file") == ("allow", 2)
    assert rs.unconditional("builtin/bash") == ("ask", 1)
    assert rs.unconditional("local/thing") == ("deny", 0)
    reordered = parse(
        [
            {"match": "builtin/read_file", "effect": "allow"},
            {"match": "builtin/*", "effect": "ask"},
            {"match": "*", "effect": "deny"},
        ]
    )
    assert reordered.unconditional("builtin/read_file") == ("deny", 2)


RM_RULES = [
    {"match": "builtin/*", "effect": "allow"},
    {"match": "builtin/bash", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "\\brm\\b"}},
    {"match": "builtin/write_file", "effect": "ask", "when": {"source": "effects", "any": "files[*].path", "regex": "protected\\.txt$"}},
]


def test_unconditional_ignores_when_rules():
    rs = parse(RM_RULES)
    assert rs.unconditional("builtin/bash") == ("allow", 0)
    assert rs.unconditional("builtin/write_file") == ("allow", 0)
    deny_then_ask = parse(
        [{"match": "builtin/bash", "effect": "deny"}, {"match": "*", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "x"}}]
    )
    assert deny_then_ask.unconditional("builtin/bash") == ("deny", 0)  # hidden before any predicate


def test_conditional_counts_when_only_if_it_matches():
    rs = parse(RM_RULES)
    assert rs.conditional("builtin/bash", {"command": "rm -rf /"}, None) == ("ask", 1)
    assert rs.conditional("builtin/bash", freeze({"command": "ls"}), None) == ("allow", 0)
    assert rs.conditional("builtin/bash", {}, None) == ("allow", 0)
    assert rs.conditional("builtin/bash", {"command": 7}, None) == ("allow", 0)


def test_conditional_on_effects():
    rs = parse(RM_RULES)
    hit = freeze({"files": [{"path": "/w/a.txt", "operation": "write"}, {"path": "/w/protected.txt", "operation": "delete"}]})
    miss = {"files": [{"path": "/w/a.txt", "operation": "write"}]}
    assert rs.conditional("builtin/write_file", {"path": "protected.txt"}, hit) == ("ask", 2)
    assert rs.conditional("builtin/write_file", {"path": "protected.txt"}, miss) == ("allow", 0)
    # effects None: an effects predicate cannot match (arguments are not looked at)
    assert rs.conditional("builtin/write_file", {"files": hit["files"]}, None) == ("allow", 0)


def test_later_unconditional_rule_shadows_earlier_when():
    rs = parse(
        [
            {"match": "builtin/bash", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "rm"}},
            {"match": "builtin/*", "effect": "allow"},
        ]
    )
    assert rs.conditional("builtin/bash", {"command": "rm x"}, None) == ("allow", 1)


def test_earlier_rule_applies_when_later_predicate_misses():
    rs = parse(
        [
            {"match": "*", "effect": "ask"},
            {"match": "builtin/bash", "effect": "ask", "when": {"source": "arguments", "any": "command", "regex": "rm"}},
        ]
    )
    assert rs.conditional("builtin/bash", {"command": "ls"}, None) == ("ask", 0)
    assert rs.conditional("builtin/bash", {"command": "rm"}, None) == ("ask", 1)


def test_many_identities_keep_working_past_the_cache():
    rs = parse([{"match": "local/a*", "effect": "deny"}])
    for i in range(5000):
        assert rs.unconditional(f"local/a{i}") == ("deny", 0)
        assert rs.unconditional(f"local/b{i}") == ("allow", None)


def test_conditional_is_cheaper_than_one_schema_validation():
    rs = parse([RM_RULES[1]])
    args = freeze({"command": "git status --short && ls -la"})
    validator = validator_for(BASH_INPUT)(BASH_INPUT)
    policy = min(timeit.repeat(lambda: rs.conditional("builtin/bash", args, None), number=500, repeat=5))
    schema = min(timeit.repeat(lambda: validator.validate(args), number=500, repeat=5))
    assert policy < schema, (policy, schema)

"""Predicates {source, any, regex}: parsing errors with exact JSON paths, RE2, evaluation."""

import time

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.frozen import freeze
from raw_tui.policy import Predicate, parse_predicate

WHERE = ["agents", "coder", "tools", "rules", 2, "when"]
BASE = "agents.coder.tools.rules[2].when"


def pred(any_="files[*].path", regex="protected\\.txt$", source="effects"):
    return parse_predicate({"source": source, "any": any_, "regex": regex}, where=WHERE, file="raw.json")


def config_error(obj) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_predicate(obj, where=WHERE, file="raw.json")
    return info.value


# ---- parsing ----------------------------------------------------------------------------


def test_parses_the_contract_example():
    p = pred()
    assert isinstance(p, Predicate)
    assert p.source == "effects"
    assert p.any == "files[*].path"
    assert p.regex == "protected\\.txt$"
    assert p.segments == (("files", True), ("path", False))
    assert p == pred()  # value equality ignores the compiled regex


@pytest.mark.parametrize(
    "obj, path, detail",
    [
        ("x", BASE, "must be an object"),
        ([], BASE, "must be an object"),
        (None, BASE, "must be an object"),
        ({"any": "a", "regex": "x"}, BASE, 'missing key "source"'),
        ({"source": "arguments", "regex": "x"}, BASE, 'missing key "any"'),
        ({"source": "arguments", "any": "a"}, BASE, 'missing key "regex"'),
        ({"source": "arguments", "any": "a", "regex": "x", "flags": "i"}, BASE + ".flags", "unknown key"),
        ({"source": "result", "any": "a", "regex": "x"}, BASE + ".source", 'must be "arguments" or "effects"'),
        ({"source": ["arguments"], "any": "a", "regex": "x"}, BASE + ".source", 'must be "arguments" or "effects"'),
        ({"source": "arguments", "any": 3, "regex": "x"}, BASE + ".any", "must be a string"),
        ({"source": "arguments", "any": "", "regex": "x"}, BASE + ".any", "must not be empty"),
        ({"source": "arguments", "any": "a", "regex": 1}, BASE + ".regex", "must be a string"),
        ({"source": "arguments", "any": "a", "regex": ""}, BASE + ".regex", "must not be empty"),
    ],
)
def test_parse_errors_name_the_exact_path(obj, path, detail):
    err = config_error(obj)
    assert err.file == "raw.json"
    assert err.path == path
    assert detail in err.detail
    assert str(err).startswith(f"raw.json: {path}: ")


@pytest.mark.parametrize(
    "any_",
    ["a..b", ".a", "a.", "a[*]]", "a[0]", "a[]", "[*]", "a[*][*]", "a[b", "a]b", "a[*].[*]", "a b[*"],
)
def test_bad_paths_are_errors_at_any(any_):
    err = config_error({"source": "arguments", "any": any_, "regex": "x"})
    assert err.path == BASE + ".any"


@pytest.mark.parametrize(
    "any_, segments",
    [
        ("command", (("command", False),)),
        ("files[*]", (("files", True),)),
        ("rows[*].cells[*].text", (("rows", True), ("cells", True), ("text", False))),
        ("a b.c-d.$e", (("a b", False), ("c-d", False), ("$e", False))),
        ("*.?", (("*", False), ("?", False))),
    ],
)
def test_good_paths(any_, segments):
    assert pred(any_=any_).segments == segments


def test_path_limits_16_segments_and_256_characters():
    assert len(pred(any_=".".join(["a"] * 16)).segments) == 16
    err = config_error({"source": "arguments", "any": ".".join(["a"] * 17), "regex": "x"})
    assert (err.path, "16") == (BASE + ".any", "16") and "16" in err.detail
    long_name = "n" * 256
    assert pred(any_=long_name).segments == ((long_name, False),)
    err = config_error({"source": "arguments", "any": "n" * 257, "regex": "x"})
    assert err.path == BASE + ".any" and "256" in err.detail


def test_regex_limit_is_1024_bytes():
    assert pred(regex="a" * 1024)
    err = config_error({"source": "arguments", "any": "a", "regex": "a" * 1025})
    assert err.path == BASE + ".regex" and "1024" in err.detail
    # bytes, not characters: 513 two-byte characters are 1026 bytes
    err = config_error({"source": "arguments", "any": "a", "regex": "é" * 513})
    assert err.path == BASE + ".regex"
    assert pred(regex="é" * 512)


@pytest.mark.parametrize(
    "regex, reason",
    [
        ("(?=x)", "invalid perl operator"),  # look-ahead
        ("(?<=x)y", "invalid perl operator"),  # look-behind
        ("(a)\\1", "invalid escape sequence"),  # back-reference
        ("a++", "bad repetition operator"),  # possessive
        ("a{2000}", "invalid repetition size"),
        ("(", "missing )"),
        ("[z-a]", "invalid character class range"),
    ],
)
def test_patterns_re2_cannot_compile_are_config_errors(regex, reason, capfd):
    err = config_error({"source": "arguments", "any": "a", "regex": regex})
    assert err.path == BASE + ".regex"
    assert reason in err.detail  # RE2's bytes message decoded
    assert "b'" not in err.detail
    assert capfd.readouterr().err == ""  # log_errors is off: nothing printed to stderr


def test_file_may_be_none():
    with pytest.raises(ConfigError) as info:
        parse_predicate("x", where=["hooks", 0, "events", 1, "when"], file=None)
    assert str(info.value) == "hooks[0].events[1].when: must be an object"


# ---- evaluation -------------------------------------------------------------------------


def test_unanchored_search():
    p = pred(any_="command", regex="rm -rf", source="arguments")
    assert p.matches({"command": "sudo rm -rf /"})
    assert not p.matches({"command": "ls"})
    anchored = pred(any_="command", regex="^rm", source="arguments")
    assert not anchored.matches({"command": "sudo rm"})
    assert anchored.matches({"command": "rm x"})


def test_any_string_of_many_matches():
    p = pred()
    effects = {"files": [{"path": "/a/ok.txt"}, {"path": "/a/protected.txt"}, {"path": "/b"}]}
    assert p.matches(effects)
    assert p.matches(freeze(effects))  # frozen values are dicts/lists too
    assert not p.matches({"files": [{"path": "/a/ok.txt"}, {"path": "/b"}]})


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"files": []},
        {"files": None},
        {"files": "protected.txt"},  # not an array where [*] is expected
        {"files": {"path": "protected.txt"}},
        {"files": [{"name": "protected.txt"}]},  # absent field
        {"files": [{"path": 7}, {"path": None}, {"path": ["protected.txt"]}]},  # not strings
        {"files": [{"path": {"x": "protected.txt"}}]},
        {"files": ["protected.txt"]},
        {"other": {"files": [{"path": "protected.txt"}]}},
        None,
        "protected.txt",
        ["protected.txt"],
        42,
    ],
)
def test_absent_fields_and_non_strings_do_not_match(value):
    assert pred().matches(value) is False


def test_nested_arrays():
    p = pred(any_="rows[*].cells[*].text", regex="secret", source="arguments")
    assert p.matches({"rows": [{"cells": [{"text": "a"}]}, {"cells": [{"text": "b"}, {"text": "my secret"}]}]})
    assert not p.matches({"rows": [{"cells": [{"text": "a"}]}, {"cells": []}, {"cells": "secret"}]})
    assert not p.matches({"rows": [{"cells": [{"txt": "secret"}]}]})


def test_array_of_strings():
    p = pred(any_="paths[*]", regex="^/etc/", source="arguments")
    assert p.matches({"paths": ["/tmp/x", 3, "/etc/passwd"]})
    assert not p.matches({"paths": ["/tmp/x", 3, {"p": "/etc/passwd"}]})


def test_empty_string_can_match():
    p = pred(any_="s", regex="^$", source="arguments")
    assert p.matches({"s": ""})
    assert not p.matches({})


def test_inline_flags_and_unicode():
    p = pred(any_="s", regex="(?i)ROOT", source="arguments")
    assert p.matches({"s": "as root"})
    uni = pred(any_="s", regex="\\pL+é$", source="arguments")
    assert uni.matches({"s": "→ café"})


def test_lone_surrogate_does_not_hide_the_rest_of_the_text():
    # Dispatch rejects such arguments; a predicate must still never miss because of one.
    p = pred(any_="s", regex="rm -rf", source="arguments")
    assert p.matches({"s": "rm -rf /\udcff"}) is True
    assert p.matches({"s": "\ud800rm -rf"}) is True
    assert p.matches({"s": "\ud800"}) is False
    q = pred(any_="s[*]", regex="x", source="arguments")
    assert q.matches({"s": ["x", "\ud800"]}) is True
    assert q.matches({"s": ["\ud800", "x"]}) is True
    assert q.matches({"s": ["\ud800x", "y"]}) is True
    assert q.matches({"s": ["\ud800", "y"]}) is False


def test_catastrophic_pattern_runs_in_linear_time():
    p = pred(any_="s", regex="(a+)+$", source="arguments")
    subject = {"s": "a" * 20000 + "!"}
    start = time.perf_counter()
    assert p.matches(subject) is False
    assert time.perf_counter() - start < 1.0
    assert p.matches({"s": "a" * 20000})


def test_predicate_is_immutable():
    p = pred()
    with pytest.raises(AttributeError):
        p.regex = "x"  # type: ignore[misc]


from hypothesis import given, settings, strategies as st  # noqa: E402

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(alphabet=st.characters(), max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "c"]), kids, max_size=3),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=_json)
def test_matches_never_raises_and_agrees_with_a_naive_walk(value):
    p = parse_predicate({"source": "arguments", "any": "a[*].b", "regex": "x"}, where=["w"], file=None)

    def naive():
        if not isinstance(value, dict) or not isinstance(value.get("a"), list):
            return False
        for item in value["a"]:
            if isinstance(item, dict) and isinstance(item.get("b"), str):
                text = item["b"]
                if "x" in text and not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
                    return True
        return False

    assert p.matches(value) is naive()

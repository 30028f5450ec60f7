"""Identity globs: `*` any run (including `/` and newlines), `?` one character, all else literal."""

import re2
import pytest
from hypothesis import given, settings, strategies as st

from raw_tui.policy import MAX_GLOB_CHARS, compile_glob


@pytest.mark.parametrize(
    "pattern, identity",
    [
        ("builtin/bash", "builtin/bash"),
        ("builtin/*", "builtin/bash"),
        ("builtin/*", "builtin/"),
        ("*", ""),
        ("*", "anything/at/all"),
        ("mcp/*", "mcp/search/query"),  # * crosses /
        ("a*b", "a\nb"),  # * crosses newlines
        ("a*b", "a\n/x\nb"),
        ("*/bash", "builtin/bash"),
        ("*sh", "builtin/bash"),
        ("b*n/b*h", "builtin/bash"),
        ("*a*a*", "banana"),
        ("?", "x"),
        ("?", "\n"),
        ("?", "é"),
        ("builtin/???h", "builtin/bash"),
        ("?*", "x"),
        ("*?", "xy"),
        ("a?c*", "abcdef"),
        ("*x?z*", "wxyzw"),
        ("a[b]c", "a[b]c"),  # [ is literal, not a class
        ("a.c", "a.c"),
        ("a+", "a+"),
        ("(a|b)", "(a|b)"),
        ("^a$", "^a$"),
        ("a\\*b", "a\\xyzb"),  # backslash is literal, * still a wildcard
        ("{a,b}", "{a,b}"),
        ("**", "x"),
        ("x*?y*z", "x1yz"),  # a middle chunk with ? placed as late as possible
        ("*a?*", "ba!"),
        ("a**b", "ab"),
    ],
)
def test_matches(pattern, identity):
    assert compile_glob(pattern).matches(identity)


@pytest.mark.parametrize(
    "pattern, identity",
    [
        ("builtin/bash", "builtin/bash2"),  # whole identity must match
        ("builtin/bash", "xbuiltin/bash"),
        ("builtin/bash", "builtin/Bash"),
        ("builtin/*", "builtin"),
        ("builtin/*", "local/builtin/x"),
        ("?", ""),
        ("?", "ab"),
        ("builtin/???h", "builtin/bsh"),
        ("a[b]c", "abc"),  # not a character class
        ("a.c", "abc"),  # . is not "any character"
        ("a+", "aa"),
        ("(a|b)", "a"),
        ("a\\*b", "a*b"),  # backslash does not escape
        ("*a*a*", "bnn"),
        ("a*b", "a\nc"),
        ("*x?z*", "xz"),
        ("ab*ba", "aba"),  # chunks must not overlap
        ("a*", ""),
    ],
)
def test_does_not_match(pattern, identity):
    assert not compile_glob(pattern).matches(identity)


def test_pattern_attribute_and_equality():
    glob = compile_glob("builtin/*")
    assert glob.pattern == "builtin/*"
    assert glob == compile_glob("builtin/*")
    assert glob != compile_glob("builtin/?")


@pytest.mark.parametrize("bad", ["", "x" * (MAX_GLOB_CHARS + 1), None, 3, ["a"]])
def test_bad_patterns_raise_value_error(bad):
    with pytest.raises(ValueError) as info:
        compile_glob(bad)
    assert str(info.value)


def test_length_limit_is_256_characters():
    assert MAX_GLOB_CHARS == 256
    assert compile_glob("a" * 256).matches("a" * 256)
    with pytest.raises(ValueError, match="256"):
        compile_glob("a" * 257)
    # characters, not bytes
    assert compile_glob("é" * 256).matches("é" * 256)


def test_adversarial_pattern_is_fast():
    import time

    glob = compile_glob("*a" * 60 + "*b")
    start = time.perf_counter()
    assert not glob.matches("a" * 5000)
    glob2 = compile_glob("?" * 100 + "*" + "?a" * 60 + "*b")
    assert not glob2.matches("a" * 5000)
    assert time.perf_counter() - start < 1.0


def _oracle(pattern: str, identity: str) -> bool:
    """Independent implementation: RE2 with every literal escaped, `(?s)` so `.` crosses newlines."""
    parts = []
    for char in pattern:
        if char == "*":
            parts.append(".*")
        elif char == "?":
            parts.append(".")
        else:
            parts.append(re2.escape(char))
    return re2.fullmatch("(?s)" + "".join(parts), identity) is not None


_alphabet = st.sampled_from(list("ab/\n*?.[") + ["é"])
_text = st.text(alphabet=st.sampled_from(list("ab/\n*?.[") + ["é"]), max_size=12)


@settings(max_examples=400, deadline=None)
@given(pattern=st.text(alphabet=_alphabet, min_size=1, max_size=10), identity=_text)
def test_agrees_with_escaped_re2(pattern, identity):
    assert compile_glob(pattern).matches(identity) == _oracle(pattern, identity)


@settings(max_examples=200, deadline=None)
@given(identity=st.text(max_size=30))
def test_literal_pattern_matches_only_itself(identity):
    if not identity:
        return
    glob = compile_glob(identity.replace("*", "x").replace("?", "y"))
    assert glob.matches(glob.pattern)
    assert not glob.matches(glob.pattern + "z")

"""Rules on what a command did (`when.source: "observed"`): parsed with ask or deny, skipped
by the policy step, judged after the dry run (a matching deny wins)."""

from __future__ import annotations

import pytest

from raw_tui.protocol.errors import ConfigError
from raw_tui.policy import RuleSet, parse_predicate

WHERE = ["agents", "a", "tools", "rules"]


def rule(effect, regex, source="observed", any="files[*].path"):
    return {"match": "builtin/bash", "effect": effect,
            "when": {"source": source, "any": any, "regex": regex}}


def observed(*paths):
    return {"files": [{"path": p, "operation": "write", "kind": "file"} for p in paths],
            "discarded": [], "diff": ""}


def test_observed_goes_with_ask_or_deny_only():
    RuleSet.parse([rule("ask", "x"), rule("deny", "y")], where=WHERE)
    with pytest.raises(ConfigError) as err:
        RuleSet.parse([rule("allow", "x")], where=WHERE)
    assert err.value.path == "agents.a.tools.rules[0].when" and '"deny"' in err.value.detail
    with pytest.raises(ConfigError) as err:  # arguments conditions stay ask-only
        RuleSet.parse([rule("deny", "x", source="arguments", any="commands[*].command")],
                      where=WHERE)
    assert err.value.detail == 'only allowed with effect "ask"'


def test_hooks_cannot_subscribe_on_observed():
    with pytest.raises(ConfigError) as err:
        parse_predicate({"source": "observed", "any": "files[*].path", "regex": "x"},
                        where=["events", 0, "when"])
    assert err.value.detail == 'must be "arguments" or "effects"'


def test_the_policy_step_skips_them_and_a_deny_wins_after_the_dry_run():
    rules = RuleSet.parse([rule("deny", r"\.env$"), rule("ask", "src/"),
                           {"match": "builtin/bash", "effect": "allow"}], where=WHERE)
    assert rules.conditional("builtin/bash", {"commands": []}) == ("allow", 2)
    assert rules.has_observed("builtin/bash")
    assert rules.observed("builtin/bash", observed("/w/src/a.py")) == ("ask", 1)
    assert rules.observed("builtin/bash", observed("/w/src/a.py", "/w/.env")) == ("deny", 0)
    assert rules.observed("builtin/bash", observed("/w/README")) is None


def test_observed_paths_must_reach_a_field(tmp_path):
    from tests.config_kit import raw_tui
    from tests.sandbox.sandbox_kit import config

    cfg = config(tmp_path / "cfg", rules=[rule("deny", "x", any="files[*].nope")])
    proc = raw_tui("--config", str(cfg), "config", "list")
    assert proc.returncode == 2 and "agents.main.tools.rules[0].when.any" in proc.stderr

"""`tools.rules` (docs/gate.md): parsing, binding to tools, and the two evaluation steps.

- `unconditional(identity)` is dispatch step 1: last matching rule without `when`
  (`deny` hides the tool from the model and gives `tool_denied`).
- `conditional(identity, arguments, effects)` is step 4: last matching rule, where a rule
  with `when` counts only if its predicate matches its source's value.
No matching rule means `allow`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from raw_tui.protocol.errors import ConfigError, json_path

from .binding import check_binding
from .glob import Glob, compile_glob
from .predicate import RULE_SOURCES, Predicate, parse_predicate

EFFECTS = ("allow", "ask", "deny")
RULE_KEYS = ("match", "effect", "when")
_CACHE_LIMIT = 4096


class ToolLike(Protocol):
    identity: str
    condition_sources: Sequence[str]
    input_schema: dict
    effects_schema: dict | None


@dataclass(frozen=True)
class Rule:
    index: int
    match: Glob
    effect: str
    when: Predicate | None = None

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "match": self.match.pattern, "effect": self.effect}
        if self.when is not None:
            out["when"] = self.when.to_json()
        return out


def parse_rule(obj: Any, *, index: int, where: list, file: str | None = None) -> Rule:
    """Parse `rules[index]` (`where` is the path of the rules array)."""
    at = [*where, index]
    if not isinstance(obj, dict):
        raise ConfigError("must be an object", file=file, path=json_path(at))
    for key in obj:
        if key not in RULE_KEYS:
            raise ConfigError("unknown key", file=file, path=json_path([*at, key]))
    for key in ("match", "effect"):
        if key not in obj:
            raise ConfigError(f'missing key "{key}"', file=file, path=json_path(at))
    try:
        match = compile_glob(obj["match"])
    except ValueError as exc:
        raise ConfigError(str(exc), file=file, path=json_path([*at, "match"])) from None
    effect = obj["effect"]
    if not isinstance(effect, str) or effect not in EFFECTS:
        raise ConfigError(
            'must be "allow", "ask" or "deny"', file=file, path=json_path([*at, "effect"])
        )
    when = None
    if "when" in obj:
        when = parse_predicate(obj["when"], where=[*at, "when"], file=file, sources=RULE_SOURCES)
        # a rule on what a command did may deny too (docs/sandbox.md)
        if effect != "ask" and not (effect == "deny" and when.source == "observed"):
            raise ConfigError(
                'only allowed with effect "ask"' + (' or "deny"' if when.source == "observed"
                                                    else ""),
                file=file, path=json_path([*at, "when"]))
    return Rule(index, match, effect, when)


class RuleSet:
    """An ordered list of rules; the last matching one wins."""

    def __init__(self, rules: Sequence[Rule] = ()) -> None:
        self.rules: list[Rule] = list(rules)
        self._reversed = tuple(reversed(self.rules))
        self._cache: dict[str, tuple[Rule, ...]] = {}

    @classmethod
    def parse(cls, rules_json: Any, *, where: list, file: str | None = None) -> "RuleSet":
        """Parse the `tools.rules` array found at JSON path `where`."""
        if not isinstance(rules_json, list):
            raise ConfigError("must be an array", file=file, path=json_path(where))
        return cls(
            [parse_rule(obj, index=i, where=where, file=file) for i, obj in enumerate(rules_json)]
        )

    def bind(
        self, tools: Mapping[str, ToolLike], *, where: list, file: str | None = None
    ) -> "RuleSet":
        """Check every `when` against every tool its `match` covers; ConfigError on the first miss.

        `where` is the path of the rules array. Returns self.
        """
        for rule in self.rules:
            if rule.when is None:
                continue
            for tool in tools.values():
                if rule.match.matches(tool.identity):
                    check_binding(rule.when, tool, where=[*where, rule.index, "when"], file=file)
        return self

    def _matching(self, identity: str) -> tuple[Rule, ...]:
        """Matching rules, last first (cached per identity)."""
        found = self._cache.get(identity)
        if found is None:
            found = tuple(rule for rule in self._reversed if rule.match.matches(identity))
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[identity] = found
        return found

    def unconditional(self, identity: str) -> tuple[str, int | None]:
        """Step 1: effect and index of the last matching rule without `when`."""
        for rule in self._matching(identity):
            if rule.when is None:
                return rule.effect, rule.index
        return "allow", None

    def conditional(
        self, identity: str, arguments: Any, effects: Any = None
    ) -> tuple[str, int | None]:
        """Step 4: last matching rule, counting a `when` rule only if its predicate matches."""
        for rule in self._matching(identity):
            when = rule.when
            if when is None:
                return rule.effect, rule.index
            if when.source == "observed":  # evaluated after the dry run: observed()
                continue
            value = arguments if when.source == "arguments" else effects
            if value is not None and when.matches(value):
                return rule.effect, rule.index
        return "allow", None

    def has_observed(self, identity: str) -> bool:
        return any(r.when is not None and r.when.source == "observed"
                   for r in self._matching(identity))

    def observed(self, identity: str, observed: Any) -> tuple[str, int] | None:
        """After a sandboxed dry run: a matching `observed` deny rule wins over any ask;
        (effect, index) of the last such rule, None when none matches."""
        found: dict[str, int] = {}
        for rule in self._matching(identity):  # last first
            when = rule.when
            if when is not None and when.source == "observed" and when.matches(observed):
                found.setdefault(rule.effect, rule.index)
        for effect in ("deny", "ask"):
            if effect in found:
                return effect, found[effect]
        return None

    def never_deciding(self, identities: Sequence[str]) -> list[tuple[Rule, Rule]]:
        """(rule, later rule) for each rule that can never decide among `identities` (the
        agent's tools): a later rule without `when` matches every one of them it matches, and
        the last matching rule wins. A rule that matches none of them is left alone (it may
        be meant for tools that appear later)."""
        found = []
        for i, rule in enumerate(self.rules):
            covered = [identity for identity in identities if rule.match.matches(identity)]
            if not covered:
                continue
            for later in self._reversed[:len(self.rules) - 1 - i]:
                if later.when is None and all(later.match.matches(c) for c in covered):
                    found.append((rule, later))
                    break
        return found

    def describe(self) -> list[dict[str, Any]]:
        """The rules as plain JSON, for `config list`."""
        return [rule.describe() for rule in self.rules]

    def __len__(self) -> int:
        return len(self.rules)

    def __repr__(self) -> str:
        return f"RuleSet({self.describe()!r})"
